package io.weir.plugin.postgres.testing;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A private PostgreSQL server for tests (RECIPES §4): {@code initdb} of a new cluster in a temporary
 * directory, started on a free loopback port with {@code max_prepared_transactions=16} and
 * {@code fsync=off}, superuser {@value #USER} with trust authentication (and password
 * {@value #PASSWORD} for tests that need password authentication: see {@link #createPasswordUser}).
 *
 * <p>The server binaries are taken from system property {@code weir.postgres.bin}, or the first of
 * {@code /usr/local/bin}, {@code /usr/lib/postgresql/<version>/bin} (newest version first) and the
 * {@code PATH} that holds {@code initdb}; without them {@link #start()} fails naming where it looked
 * and how to install them. {@code initdb} refuses to run as root, so as root every server command
 * runs as user {@code postgres} through {@code runuser}.
 *
 * <p>{@link #close()} stops the server ({@code pg_ctl -m fast stop}) and deletes the directory; a
 * JVM shutdown hook does the same if a test run ends without it (also when a test fails or the run
 * is interrupted). Use one server per test class ({@code @BeforeAll} / {@code @AfterAll}) and
 * {@link #reset} between tests.
 *
 * <p>Thread-safe: the methods are synchronized; {@link #url()} and the accessors are immutable.
 */
public final class PostgresTestServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresTestServer.class);
    /** The superuser {@code initdb} creates; trust authentication on the loopback address. */
    public static final String USER = "weir";
    /** Password of the password-authenticated user that {@link #createPasswordUser} creates. */
    public static final String PASSWORD = "s3cret-pw";
    /** The OS user the server runs as when the tests run as root. */
    private static final String OS_USER = "postgres";
    private static final long COMMAND_TIMEOUT_S = 60;

    private final Path bin;
    private final Path dir;
    private final int port;
    private final boolean asRoot;
    private final Thread shutdownHook;
    // guarded by this
    private boolean running;

    private PostgresTestServer(Path bin, Path dir, int port, boolean asRoot) {
        this.bin = bin;
        this.dir = dir;
        this.port = port;
        this.asRoot = asRoot;
        this.shutdownHook = new Thread(this::stopQuietly, "postgres-test-server-stop");
    }

    /**
     * Creates and starts a new cluster (~0.5 s).
     *
     * @throws IllegalStateException if the server binaries cannot be found (naming where it looked) or
     *         a server command fails (with its output and the server log)
     * @throws IOException if the temporary directory cannot be created
     */
    public static PostgresTestServer start() throws IOException, InterruptedException {
        Path bin = findBinaries();
        boolean asRoot = isRoot();
        Path dir = Files.createTempDirectory("weir-pg-");
        if (asRoot) {
            run(List.of("chown", OS_USER + ":", dir.toString()), dir, "chown " + dir + " to user " + OS_USER
                    + " (the server must not run as root; create the user with `useradd -r -M " + OS_USER + "` if it is missing)");
        }
        PostgresTestServer server = new PostgresTestServer(bin, dir, freePort(), asRoot);
        Runtime.getRuntime().addShutdownHook(server.shutdownHook);
        try {
            server.pg(List.of(bin.resolve("initdb").toString(), "-D", server.dataDir().toString(), "-A", "trust", "-U", USER,
                    "-E", "UTF8", "--no-sync", "--no-instructions"), "initdb");
            Files.writeString(server.dataDir().resolve("pg_hba.conf"),
                    "local all all trust\nhost all " + USER + " 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n",
                    StandardCharsets.UTF_8);
            server.startServer();
        } catch (RuntimeException | IOException | InterruptedException e) {
            server.close();
            throw e;
        }
        LOG.info("PostgreSQL test server on 127.0.0.1:{} in {}", server.port, dir);
        return server;
    }

    /** @return the JDBC URL of database {@code postgres} on this server */
    public String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    /** @return the TCP port on 127.0.0.1 */
    public int port() {
        return port;
    }

    /**
     * @return a new autocommit connection as superuser {@value #USER}
     * @throws SQLException if the server does not answer
     */
    public Connection connect() throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", USER);
        p.setProperty("connectTimeout", "5");
        return DriverManager.getConnection(url(), p);
    }

    /** Runs SQL statements in one autocommit session. @throws SQLException naming the failing statement */
    public void execute(String... sql) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            for (String statement : sql) {
                try {
                    s.execute(statement);
                } catch (SQLException e) {
                    throw new SQLException(statement + ": " + e.getMessage(), e.getSQLState(), e);
                }
            }
        }
    }

    /** @return the single long value of a query such as {@code SELECT count(*) ...} */
    public long queryLong(String sql) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            if (!rs.next()) {
                throw new SQLException("no row from " + sql);
            }
            return rs.getLong(1);
        }
    }

    /** @return the gids in {@code pg_prepared_xacts}, sorted */
    public List<String> preparedGids() throws SQLException {
        List<String> gids = new ArrayList<>();
        try (Connection c = connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT gid FROM pg_prepared_xacts ORDER BY gid")) {
            while (rs.next()) {
                gids.add(rs.getString(1));
            }
        }
        return gids;
    }

    /**
     * Rolls back every prepared transaction (they hold locks and survive restarts) and drops the
     * tables of schema {@code public}: a clean database for the next test.
     */
    public synchronized void reset() throws SQLException {
        for (String gid : preparedGids()) {
            execute("ROLLBACK PREPARED '" + gid.replace("'", "''") + "'");
        }
        execute("DROP SCHEMA public CASCADE", "CREATE SCHEMA public");
    }

    /** Creates role {@code name} with password {@value #PASSWORD}, allowed everything on schema public. */
    public void createPasswordUser(String name) throws SQLException {
        execute("CREATE ROLE " + name + " LOGIN PASSWORD '" + PASSWORD + "'", "GRANT ALL ON SCHEMA public TO " + name);
    }

    /**
     * Crash and recover: {@code pg_ctl -m immediate stop} (no shutdown checkpoint; sessions are cut)
     * then start, which runs crash recovery. Prepared transactions survive.
     */
    public synchronized void restart() throws IOException, InterruptedException {
        crash();
        startServer();
    }

    /** {@code pg_ctl -m immediate stop}: the server is down until {@link #startAgain()}. */
    public synchronized void crash() throws IOException, InterruptedException {
        pg(List.of(bin.resolve("pg_ctl").toString(), "-D", dataDir().toString(), "-m", "immediate", "-w", "stop"), "pg_ctl stop -m immediate");
        running = false;
    }

    /** Starts the server after {@link #crash()}. */
    public synchronized void startAgain() throws IOException, InterruptedException {
        startServer();
    }

    /** Stops the server ({@code -m fast}) and deletes its directory; idempotent. */
    @Override
    public synchronized void close() {
        stopQuietly();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or ran
        }
    }

    private synchronized void startServer() throws IOException, InterruptedException {
        pg(List.of(bin.resolve("pg_ctl").toString(), "-D", dataDir().toString(), "-l", dir.resolve("server.log").toString(),
                "-w", "-t", "30", "-o", "-p " + port + " -c listen_addresses=127.0.0.1 -c unix_socket_directories=" + dir
                        + " -c max_prepared_transactions=16 -c fsync=off -c full_page_writes=off -c synchronous_commit=off", "start"),
                "pg_ctl start");
        running = true;
    }

    private synchronized void stopQuietly() {
        try {
            if (running) {
                pg(List.of(bin.resolve("pg_ctl").toString(), "-D", dataDir().toString(), "-m", "fast", "-w", "stop"), "pg_ctl stop");
                running = false;
            }
        } catch (Exception e) {
            LOG.warn("Could not stop the PostgreSQL test server in {}: {}", dir, e.toString());
        }
        deleteRecursively(dir);
    }

    private Path dataDir() {
        return dir.resolve("data");
    }

    /** Runs a server command, as {@value #OS_USER} when this JVM runs as root. */
    private void pg(List<String> command, String what) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>();
        if (asRoot) {
            full.addAll(List.of("runuser", "-u", OS_USER, "--"));
        }
        full.addAll(command);
        run(full, dir, what);
    }

    private static void run(List<String> command, Path dir, String what) throws IOException, InterruptedException {
        Path log = Files.createTempFile("weir-pg-cmd-", ".log");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(COMMAND_TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(what + " did not finish within " + COMMAND_TIMEOUT_S + " s: " + command);
            }
            if (p.exitValue() != 0) {
                Path serverLog = dir.resolve("server.log");
                throw new IllegalStateException(what + " failed (exit " + p.exitValue() + "): " + command + "\n"
                        + Files.readString(log, StandardCharsets.UTF_8)
                        + (Files.exists(serverLog) ? "\n--- server log ---\n" + Files.readString(serverLog, StandardCharsets.UTF_8) : ""));
            }
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** @return the directory holding {@code initdb} and {@code pg_ctl} */
    static Path findBinaries() {
        List<Path> candidates = new ArrayList<>();
        String configured = System.getProperty("weir.postgres.bin");
        if (configured != null && !configured.isBlank()) {
            candidates.add(Path.of(configured));
        }
        candidates.add(Path.of("/usr/local/bin"));
        Path debian = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(debian)) {
            try (Stream<Path> versions = Files.list(debian)) {
                versions.sorted(Comparator.comparing(PostgresTestServer::versionOf).reversed())
                        .forEach(v -> candidates.add(v.resolve("bin")));
            } catch (IOException e) {
                LOG.debug("Cannot list {}: {}", debian, e.toString());
            }
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String entry : path.split(java.io.File.pathSeparator)) {
                if (!entry.isEmpty()) {
                    candidates.add(Path.of(entry));
                }
            }
        }
        for (Path c : candidates) {
            if (Files.isExecutable(c.resolve("initdb")) && Files.isExecutable(c.resolve("pg_ctl"))) {
                return c;
            }
        }
        throw new IllegalStateException("PostgreSQL server binaries (initdb, pg_ctl) not found; looked in " + candidates
                + ". Install them (Debian: apt-get install postgresql; .ci/run does this when they are missing) or set"
                + " -Dweir.postgres.bin=<directory holding initdb>");
    }

    private static int versionOf(Path dir) {
        try {
            return Integer.parseInt(dir.getFileName().toString());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static boolean isRoot() {
        try {
            Process p = new ProcessBuilder("id", "-u").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            p.waitFor();
            return "0".equals(out);
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void deleteRecursively(Path p) {
        if (!Files.exists(p)) {
            return;
        }
        try {
            if (Files.isDirectory(p) && !Files.isSymbolicLink(p)) {
                try (DirectoryStream<Path> children = Files.newDirectoryStream(p)) {
                    for (Path c : children) {
                        deleteRecursively(c);
                    }
                }
            }
            Files.deleteIfExists(p);
        } catch (IOException e) {
            LOG.debug("Cannot delete {}: {}", p, e.toString());
        }
    }
}
