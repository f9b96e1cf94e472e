package io.weir.launcher;

import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.Properties;

/**
 * The pid file {@code <data-dir>/node.pid} of a running node: which process it is, when that process started and
 * where its REST API listens. The node writes it itself when it starts ({@link #claim}), foreground or background,
 * and removes it when it stops cleanly ({@link #release}); after {@code kill -9} it stays behind and is recognised
 * as stale: its process is gone, or its pid now belongs to a process that started at another time (a recycled
 * pid).
 * <pre>
 * # Weir node (removed when it stops)
 * pid=12345
 * started=2026-12-01T04:10:04.120Z
 * url=http://127.0.0.1:8081
 * </pre>
 *
 * @param pid the node's process id
 * @param started when that process started (from the OS, {@link ProcessHandle.Info#startInstant()})
 * @param url the node's REST API
 */
record NodePidFile(long pid, Instant started, URI url) {
    /** The file's name inside the data directory. */
    static final String FILE_NAME = "node.pid";
    /**
     * How far the recorded start time may differ from the OS's for the same process: the OS reports it in clock
     * ticks relative to boot, so two readings can differ in the last digits; a recycled pid is off by far more.
     */
    static final Duration START_TOLERANCE = Duration.ofSeconds(1);

    /** @throws IllegalArgumentException for a pid below 1 or a missing start time or URL */
    NodePidFile {
        if (pid < 1) {
            throw new IllegalArgumentException("pid must be >= 1, got " + pid);
        }
        if (started == null || url == null) {
            throw new IllegalArgumentException("a node pid file needs a start time and a URL");
        }
    }

    /** @return the pid file of the node with data directory {@code dataDir} */
    static Path path(Path dataDir) {
        return dataDir.resolve(FILE_NAME);
    }

    /**
     * @param file the pid file
     * @return its content, or empty if there is no such file
     * @throws LauncherException (exit 1) naming the file if it exists but cannot be read or is not a node's pid file
     */
    static Optional<NodePidFile> read(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new LauncherException(ExitCodes.FAILED, "cannot read the node's pid file " + file + ": " + e.getMessage());
        }
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
            return Optional.of(new NodePidFile(Long.parseLong(p.getProperty("pid", "").strip()),
                    Instant.parse(p.getProperty("started", "").strip()), URI.create(p.getProperty("url", "").strip())));
        } catch (IOException | IllegalArgumentException | DateTimeParseException e) {
            throw new LauncherException(ExitCodes.FAILED, "pid file " + file + " is not a Weir node's pid file (" + e.getMessage()
                    + "); delete it if no node runs with this data directory");
        }
    }

    /** @return the process this file names, if it is alive and is the process that wrote the file */
    Optional<ProcessHandle> process() {
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).filter(h -> h.info().startInstant()
                .map(s -> Duration.between(s, started).abs().compareTo(START_TOLERANCE) <= 0)
                .orElse(true)); // the OS does not say: assume it is the same process rather than stop a live node twice
    }

    /** @return the file's text */
    String text() {
        return "# Weir node (removed when it stops)\npid=" + pid + "\nstarted=" + started + "\nurl=" + url + "\n";
    }

    /**
     * Writes the pid file of the current process, refusing if a live node holds it; a stale file (its process is
     * gone or its pid recycled) is replaced. Exclusive: two nodes starting on one data directory at the same moment
     * cannot both succeed (the file appears atomically, by a hard link from a private temporary file).
     *
     * @param dataDir the node's data directory (exists)
     * @param url the node's REST API
     * @return what was written
     * @throws LauncherException (exit 1) if another live node holds the data directory, naming its pid and URL, or
     *         if the file cannot be written
     */
    static NodePidFile claim(Path dataDir, URI url) {
        ProcessHandle self = ProcessHandle.current();
        NodePidFile mine = new NodePidFile(self.pid(), self.info().startInstant().orElseGet(Instant::now), url);
        Path file = path(dataDir);
        Path tmp = dataDir.resolve(FILE_NAME + "." + self.pid() + ".tmp");
        try {
            Files.writeString(tmp, mine.text(), StandardCharsets.UTF_8);
            for (int attempt = 0; ; attempt++) {
                try {
                    Files.createLink(file, tmp);
                    return mine;
                } catch (FileAlreadyExistsException e) {
                    Optional<NodePidFile> other = read(file);
                    if (other.isPresent() && other.get().process().isPresent()) {
                        throw alreadyRunning(dataDir, other.get());
                    }
                    if (attempt > 0) {
                        throw new LauncherException(ExitCodes.FAILED, "another node is starting with data directory " + dataDir
                                + " (its pid file " + file + " keeps reappearing)");
                    }
                    Files.deleteIfExists(file); // stale: a node that was killed, or a recycled pid
                }
            }
        } catch (IOException e) {
            throw new LauncherException(ExitCodes.FAILED, "cannot write the node's pid file " + file + ": " + e.getMessage(), e);
        } finally {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException e) {
                // a leftover temporary file does no harm: the next claim of this pid overwrites it
            }
        }
    }

    /**
     * Removes the pid file if it still names this process (a node that was refused at start must not remove the
     * running node's file).
     *
     * @param dataDir the node's data directory
     */
    static void release(Path dataDir, long pid) {
        Path file = path(dataDir);
        try {
            if (read(file).map(f -> f.pid() == pid).orElse(false)) {
                Files.deleteIfExists(file);
            }
        } catch (IOException | LauncherException e) {
            // leave it: the next start recognises it as stale
        }
    }

    /** @return the one-line refusal of a second node on the same data directory */
    static LauncherException alreadyRunning(Path dataDir, NodePidFile running) {
        return new LauncherException(ExitCodes.FAILED, "a Weir node is already running with data directory " + dataDir
                + " (pid " + running.pid() + ", " + running.url() + "); stop it with 'weir node stop --data-dir " + dataDir + "'");
    }
}
