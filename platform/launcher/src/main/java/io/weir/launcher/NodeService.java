package io.weir.launcher;

import jakarta.json.JsonObject;

import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code weir node start|stop|status}: a node as a background service, found through its pid file
 * ({@link NodePidFile}, {@code <data-dir>/node.pid}) and logging to {@code <data-dir>/log/node.log}.
 *
 * <p>Exit codes, as LSB init scripts: {@code start} 0 running, 1 it did not come up (its error line and the end of
 * its log are printed) or a node already runs with the data directory (one line); {@code stop} 0
 * stopped or was not running, 1 it did not stop in time; {@code status} 0 running, 3 not running (no pid file, or
 * a stale one), 4 running but its REST API does not answer.
 *
 * <p>Not thread-safe: one instance per command, used by the main thread.
 */
final class NodeService {
    /** How a node's "ready" line starts ({@code weir node} prints it once its REST API answers). */
    static final String LISTENING = "Weir node listening on ";

    /** {@code status}: not running (LSB). */
    static final int NOT_RUNNING = 3;
    /** {@code status}: the process runs but its REST API does not answer (LSB "unknown"). */
    static final int UNKNOWN = 4;
    /** Longest wait in {@code start} for the REST API to answer: the node's own readiness timeout plus its boot. */
    static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    /** Pause between two looks at a starting or stopping node, ms. */
    static final long POLL_MS = 100;
    /** Lines of the log {@code start} prints when the node dies while starting. */
    static final int LOG_TAIL_LINES = 20;

    private final NodeSpawner spawner;
    private final PrintStream out;
    private final PrintStream err;

    /**
     * @param spawner starts the background process
     * @param out what the commands report
     * @param err where a failed start's log tail goes
     */
    NodeService(NodeSpawner spawner, PrintStream out, PrintStream err) {
        this.spawner = spawner;
        this.out = out;
        this.err = err;
    }

    /** @return where the node with data directory {@code dataDir} logs */
    static Path logFile(Path dataDir) {
        return dataDir.resolve("log").resolve("node.log");
    }

    /**
     * Starts the node in the background and returns once its REST API answers.
     *
     * @param settings port, data and savepoint directory
     * @return {@link ExitCodes#OK} once it answers, {@link ExitCodes#FAILED} if it ended during start
     * @throws LauncherException (exit 1) if a node already runs with this data directory, the process cannot be
     *         started, or it does not answer within {@link #START_TIMEOUT}
     * @throws InterruptedException if interrupted while waiting (the node keeps starting)
     */
    int start(NodeSettings settings) throws InterruptedException {
        Path dataDir = settings.dataDir();
        Path pidPath = NodePidFile.path(dataDir);
        Optional<NodePidFile> existing = NodePidFile.read(pidPath);
        if (existing.isPresent() && existing.get().process().isPresent()) {
            throw NodePidFile.alreadyRunning(dataDir, existing.get());
        }
        Path log = logFile(dataDir);
        long logStart;
        try {
            Files.createDirectories(log.getParent());
            Files.writeString(log, "--- weir node start " + Instant.now() + " ---\n", StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            logStart = Files.size(log);
        } catch (IOException e) {
            throw new LauncherException(ExitCodes.FAILED, "cannot write the node's log " + log + ": " + e.getMessage());
        }
        List<String> args = new ArrayList<>(List.of("node", "--port", String.valueOf(settings.port()), "--data-dir", dataDir.toString()));
        if (settings.savepointDir() != null) {
            args.addAll(List.of("--savepoint-dir", settings.savepointDir().toString()));
        }
        Process process;
        try {
            process = spawner.spawn(args, log);
        } catch (IOException e) {
            throw new LauncherException(ExitCodes.FAILED, "cannot start the node process: " + e.getMessage());
        }
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        NodeClient client = new NodeClient(settings.url().toString());
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                return diedDuringStart(process, log, logStart);
            }
            Optional<NodePidFile> pid = readQuietly(pidPath);
            // the node's own "listening" line, not just an answer on the URL: another node may hold the port
            if (pid.isPresent() && pid.get().pid() == process.pid() && saysListening(log, logStart) && answers(client)
                    && process.isAlive()) {
                out.println(LISTENING + settings.url() + " (pid " + process.pid() + ", data directory " + dataDir
                        + ", log " + log + ", admin token in " + settings.tokenFile() + "); 'weir node stop --data-dir "
                        + dataDir + "' stops it");
                return ExitCodes.OK;
            }
            Thread.sleep(POLL_MS);
        }
        throw new LauncherException(ExitCodes.FAILED, "the node (pid " + process.pid() + ") did not answer on " + settings.url()
                + " within " + START_TIMEOUT.toSeconds() + " s; it is still starting or hangs: see " + log
                + "; 'weir node stop --force --data-dir " + dataDir + "' stops it");
    }

    /**
     * Sends SIGTERM (the same clean stop as Ctrl-C: running jobs are recorded SUSPENDED and resume at the
     * next start) and waits; removes the pid file.
     *
     * @param dataDir the node's data directory
     * @param timeout the longest wait for the process to end
     * @param force whether to SIGKILL it when it has not ended within {@code timeout}
     * @return {@link ExitCodes#OK} stopped or not running; {@link ExitCodes#FAILED} still running after the timeout
     *         (without {@code force})
     * @throws InterruptedException if interrupted while waiting
     */
    int stop(Path dataDir, Duration timeout, boolean force) throws InterruptedException {
        Path pidPath = NodePidFile.path(dataDir);
        Optional<NodePidFile> file = NodePidFile.read(pidPath);
        if (file.isEmpty()) {
            out.println("No Weir node is running with data directory " + dataDir + " (no pid file " + pidPath + ")");
            return ExitCodes.OK;
        }
        Optional<ProcessHandle> process = file.get().process();
        if (process.isEmpty()) {
            deleteQuietly(pidPath);
            out.println("No Weir node is running with data directory " + dataDir + "; removed the stale pid file of pid "
                    + file.get().pid() + " (it ended without removing it, e.g. killed)");
            return ExitCodes.OK;
        }
        ProcessHandle node = process.get();
        out.println("Stopping Weir node pid " + node.pid() + " (" + file.get().url() + ") ...");
        node.destroy();
        if (!awaitExit(node, timeout)) {
            if (!force) {
                throw new LauncherException(ExitCodes.FAILED, "Weir node pid " + node.pid() + " did not stop within "
                        + timeout.toSeconds() + " s of SIGTERM; it may still be stopping (see " + logFile(dataDir)
                        + "); 'weir node stop --force' kills it");
            }
            node.destroyForcibly();
            if (!awaitExit(node, Duration.ofSeconds(10))) {
                throw new LauncherException(ExitCodes.FAILED, "Weir node pid " + node.pid() + " survived SIGKILL for 10 s");
            }
            NodePidFile.release(dataDir, node.pid());
            out.println("Weir node pid " + node.pid() + " did not stop within " + timeout.toSeconds()
                    + " s; killed it (SIGKILL): its running jobs resume from their latest checkpoints at the next start");
            return ExitCodes.OK;
        }
        NodePidFile.release(dataDir, node.pid()); // it removes the file itself when it stops cleanly
        out.println("Weir node pid " + node.pid() + " stopped; its running jobs resume at the next start");
        return ExitCodes.OK;
    }

    /**
     * @param dataDir the node's data directory
     * @param now the current time, for the uptime
     * @return 0 running, {@link #NOT_RUNNING}, or {@link #UNKNOWN} if the process runs but its API does not answer
     */
    int status(Path dataDir, Instant now) {
        Path pidPath = NodePidFile.path(dataDir);
        Optional<NodePidFile> file = NodePidFile.read(pidPath);
        if (file.isEmpty()) {
            out.println("Weir node is not running (data directory " + dataDir + " has no pid file)");
            return NOT_RUNNING;
        }
        NodePidFile f = file.get();
        if (f.process().isEmpty()) {
            out.println("Weir node is not running: its pid file " + pidPath + " is stale (pid " + f.pid() + ", started "
                    + f.started() + ", has ended or the pid now belongs to another process); 'weir node start' replaces it");
            return NOT_RUNNING;
        }
        String uptime = NodeCommands.seconds(Math.max(0, Duration.between(f.started(), now).toMillis()));
        NodeClient.Answer overview;
        try {
            overview = new NodeClient(f.url().toString()).send("GET", "/overview", null, null);
        } catch (LauncherException e) {
            overview = null;
        }
        if (overview == null || overview.status() != 200) {
            out.println("Weir node pid " + f.pid() + " is running (up " + uptime + ") but its REST API at " + f.url()
                    + " does not answer" + (overview == null ? "" : " (HTTP " + overview.status() + ")")
                    + ": it is starting, stopping or hangs; see " + logFile(dataDir));
            return UNKNOWN;
        }
        JsonObject o = overview.body();
        out.println("Weir node is running: pid " + f.pid() + ", " + f.url() + ", up " + uptime + ", jobs: "
                + NodeCommands.number(o, "jobs-running") + " running, " + NodeCommands.number(o, "jobs-finished") + " finished, "
                + NodeCommands.number(o, "jobs-cancelled") + " cancelled, " + NodeCommands.number(o, "jobs-failed")
                + " failed (data directory " + dataDir + ", log " + logFile(dataDir) + ")");
        return ExitCodes.OK;
    }

    /** Prints the node's own error line and the end of its log; returns {@link ExitCodes#FAILED}. */
    private int diedDuringStart(Process process, Path log, long logStart) {
        List<String> lines = readFrom(log, logStart);
        String own = null;
        for (String line : lines) {
            if (line.startsWith("error: ")) {
                own = line;
            }
        }
        err.println(own != null ? own : "error: the node exited during start with code " + process.exitValue());
        err.println("The node (pid " + process.pid() + ") exited during start with code " + process.exitValue()
                + "; the end of its log " + log + ":");
        for (String line : lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size())) {
            err.println("  " + line);
        }
        return ExitCodes.FAILED;
    }

    private static List<String> readFrom(Path log, long offset) {
        try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
            long length = f.length();
            byte[] bytes = new byte[(int) Math.min(Math.max(0, length - offset), 1 << 20)];
            f.seek(length - bytes.length);
            f.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8).lines().toList();
        } catch (IOException e) {
            return List.of("(cannot read " + log + ": " + e.getMessage() + ")");
        }
    }

    /** @return whether the node's log, from {@code offset} on, has its "Weir node listening on" line */
    private static boolean saysListening(Path log, long offset) {
        return readFrom(log, offset).stream().anyMatch(l -> l.startsWith(LISTENING));
    }

    private static boolean answers(NodeClient client) {
        try {
            return client.send("GET", "/overview", null, null).status() == 200;
        } catch (LauncherException e) {
            return false;
        }
    }

    /** The pid file may be half-written or replaced while the node starts: any failure reads as "not yet". */
    private static Optional<NodePidFile> readQuietly(Path pidPath) {
        try {
            return NodePidFile.read(pidPath);
        } catch (LauncherException e) {
            return Optional.empty();
        }
    }

    private static boolean awaitExit(ProcessHandle process, Duration timeout) throws InterruptedException {
        try {
            process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return !process.isAlive();
        } catch (ExecutionException e) {
            return !process.isAlive();
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // the next start replaces it
        }
    }
}
