package io.weir.console;

/**
 * Every configuration key of the console, with its default and meaning (docs/console.md lists them). Values come from
 * MicroProfile Config: {@code microprofile-config.properties} in the WAR, system properties, or environment variables
 * ({@code weir.console.nodes} → {@code WEIR_CONSOLE_NODES}). Credentials (tokens, passwords) are never logged.
 */
public final class ConsoleOptions {
    /** The nodes: comma-separated {@code name=url}; default one node {@code local=http://127.0.0.1:8081}. */
    public static final String NODES = "weir.console.nodes";
    public static final String NODES_DEFAULT = "local=http://127.0.0.1:8081";
    /** Prefix of per-node keys: {@code weir.console.node.<name>.token-file} (a file holding the node's bearer token). */
    public static final String NODE_PREFIX = "weir.console.node.";
    /** Suffix: the file with the node's admin token ({@code <data-dir>/security/admin.token}); read on every action. */
    public static final String TOKEN_FILE_SUFFIX = ".token-file";
    /** Suffix: the node's token itself, when no file is given. */
    public static final String TOKEN_SUFFIX = ".token";
    /** TCP connect timeout to a node in ms; default 2000. */
    public static final String CONNECT_TIMEOUT_MS = "weir.console.connect-timeout-ms";
    public static final long CONNECT_TIMEOUT_MS_DEFAULT = 2000;
    /** Read timeout of one node request in ms; default 10000. */
    public static final String READ_TIMEOUT_MS = "weir.console.read-timeout-ms";
    public static final long READ_TIMEOUT_MS_DEFAULT = 10_000;
    /** How often the console polls every node for its jobs, ms; default 2000. */
    public static final String POLL_INTERVAL_MS = "weir.console.poll-interval-ms";
    public static final long POLL_INTERVAL_MS_DEFAULT = 2000;
    /** The readiness check of a job fails when its last completed checkpoint is older than this many intervals; default 3. */
    public static final String STALE_INTERVALS = "weir.console.stale-intervals";
    public static final int STALE_INTERVALS_DEFAULT = 3;
    /** Console users: comma-separated {@code name:password:role[|role...]}; roles {@code operator} (actions) and {@code viewer}. */
    public static final String USERS = "weir.console.users";
    /** How long a login token is valid, seconds; default 28800 (8 h). */
    public static final String TOKEN_LIFETIME_S = "weir.console.token-lifetime-s";
    public static final long TOKEN_LIFETIME_S_DEFAULT = 28_800;
    /** How long a savepoint or stop action waits for the node to finish it, seconds; default 120. */
    public static final String ACTION_WAIT_S = "weir.console.action-wait-s";
    public static final long ACTION_WAIT_S_DEFAULT = 120;

    /** The role that may act (checkpoint, savepoint, stop, cancel, upload). */
    public static final String OPERATOR = "operator";
    /** A role that may only read; reading needs no login at all, it exists for users without actions. */
    public static final String VIEWER = "viewer";
    /** The issuer of the console's login tokens ({@code iss}). */
    public static final String ISSUER = "weir-console";

    private ConsoleOptions() {
    }
}
