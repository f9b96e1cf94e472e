package io.weir.launcher;

import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a node listens and keeps its files ({@code weir node --port N --data-dir DIR}).
 *
 * @param host the address the REST API binds, {@value #HOST}
 * @param port the REST API's TCP port, 1..65535 (default {@value #DEFAULT_PORT})
 * @param dataDir the node's data directory (absolute): its key and admin token under {@code security/}, its pid file
 *        {@code node.pid}, its jobs under {@code jobs/}
 * @param savepointDir the directory savepoint targets and restore paths must lie in (absolute), or null for
 *        {@code <dataDir>/savepoints}
 */
public record NodeSettings(String host, int port, Path dataDir, Path savepointDir) {
    /** The only bind address this round: the node is reachable from this machine only. */
    public static final String HOST = "127.0.0.1";
    /** Flink's REST port. */
    public static final int DEFAULT_PORT = 8081;
    /** Framework property naming the data directory for the REST bundle ({@code io.weir.rest.node.NodeProperties}). */
    static final String DATA_DIR_PROPERTY = "weir.node.data-dir";
    /** Framework property naming the savepoint directory ({@code io.weir.rest.node.NodeProperties}). */
    static final String SAVEPOINT_DIR_PROPERTY = "weir.node.savepoint-dir";

    /**
     * @throws LauncherException (exit 2) for a port outside 1..65535 or a relative data or savepoint directory
     */
    public NodeSettings {
        if (port < 1 || port > 65535) {
            throw new LauncherException(ExitCodes.USAGE, "--port must be 1..65535, got " + port);
        }
        if (dataDir == null || !dataDir.isAbsolute()) {
            throw new LauncherException(ExitCodes.USAGE, "the data directory must be an absolute path, got " + dataDir);
        }
        if (savepointDir != null && !savepointDir.isAbsolute()) {
            throw new LauncherException(ExitCodes.USAGE, "the savepoint directory must be an absolute path, got " + savepointDir);
        }
    }

    /** Settings with the default savepoint directory, {@code <dataDir>/savepoints}. */
    public NodeSettings(String host, int port, Path dataDir) {
        this(host, port, dataDir, null);
    }

    /** @return the REST API's base URL, e.g. {@code http://127.0.0.1:8081} */
    public URI url() {
        return URI.create("http://" + host + ":" + port);
    }

    /** @return the framework properties that configure Felix HTTP and the REST bundle */
    Map<String, String> frameworkProperties() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("org.apache.felix.http.host", host);
        p.put("org.osgi.service.http.port", String.valueOf(port));
        p.put(DATA_DIR_PROPERTY, dataDir.toString());
        if (savepointDir != null) {
            p.put(SAVEPOINT_DIR_PROPERTY, savepointDir.toString());
        }
        return p;
    }

    /** @return the admin token's file under the data directory */
    public Path tokenFile() {
        return tokenFile(dataDir);
    }

    /** @return where a node with data directory {@code dataDir} writes its admin token */
    public static Path tokenFile(Path dataDir) {
        return dataDir.resolve("security").resolve("admin.token");
    }
}
