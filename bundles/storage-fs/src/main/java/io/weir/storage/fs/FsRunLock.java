package io.weir.storage.fs;

import io.weir.core.storage.CheckpointStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The run lock of one job's checkpoint directory ({@link CheckpointStorage#lockRun()}): an operating-system
 * file lock ({@link FileChannel#tryLock()}) on {@code <dir>/<job>/}{@value #LOCK_FILE}, which the OS
 * releases when the process dies, even by {@code kill -9}. While held, the file names the holder
 * ({@code pid}, {@code started}: the process's start time, {@code job}, {@code locked}: when the lock
 * was taken, as Java properties), so a run that is refused can say which process to stop.
 *
 * <p>The lock file is never deleted: deleting it would let a run lock a new file of the same name while
 * another still holds the old one.
 *
 * <p>OS file locks belong to the whole process, and on POSIX closing <em>any</em> channel of a file
 * drops all of the process's locks on it. So within one JVM a second run must not even open the lock
 * file: {@link #HELD} records the lock files this process holds and is checked first. It is the one
 * piece of static mutable state here, on purpose: it mirrors state the OS keeps per process.
 *
 * <p>Thread-safe: {@link #close()} may be called from any thread, any number of times.
 */
public final class FsRunLock implements CheckpointStorage.RunLock {
    /** Name of the lock file in a job's checkpoint directory. */
    public static final String LOCK_FILE = "_run.lock";

    private static final Logger LOG = LoggerFactory.getLogger(FsRunLock.class);

    /** Lock files (real paths) held by this process, with the job that holds each; see the class comment. */
    private static final ConcurrentMap<Path, String> HELD = new ConcurrentHashMap<>();

    private final Path file;
    private final String jobName;
    private final FileChannel channel;
    private final FileLock lock;
    private final AtomicBoolean released = new AtomicBoolean();

    private FsRunLock(Path file, String jobName, FileChannel channel, FileLock lock) {
        this.file = file;
        this.jobName = jobName;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the run lock of {@code jobDirectory}, creating the lock file if needed.
     *
     * @param jobDirectory the job's checkpoint directory; must exist
     * @param jobName the job, for messages and the lock file's content
     * @return the held lock
     * @throws IOException if this or another process holds the lock (naming the holder's pid and start time
     *         when the lock file records them, and what to do), or if the lock file cannot be opened or locked
     */
    public static FsRunLock acquire(Path jobDirectory, String jobName) throws IOException {
        Path file = jobDirectory.toRealPath().resolve(LOCK_FILE);
        String self = describe(ProcessHandle.current());
        String previous = HELD.putIfAbsent(file, jobName);
        if (previous != null) {
            throw new IOException("job " + jobName + " is already running in this process (" + self + ", job " + previous
                    + " holds " + file + "); two runs of one job must not share the checkpoint directory " + jobDirectory
                    + ". Wait for the running one to end, or cancel it");
        }
        FileChannel channel;
        FileLock lock;
        try {
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (IOException e) {
            HELD.remove(file, jobName);
            throw new IOException("cannot open the run lock file " + file + " of job " + jobName + ": " + e, e);
        }
        try {
            lock = channel.tryLock();
        } catch (IOException e) {
            closeAfterFailure(channel, e);
            HELD.remove(file, jobName);
            throw new IOException("cannot lock the run lock file " + file + " of job " + jobName + ": " + e, e);
        }
        if (lock == null) {
            IOException refused = new IOException("job " + jobName + " is already running: " + holder(file) + " holds the lock file "
                    + file + " of checkpoint directory " + jobDirectory + ", and two runs of one job must not share it. Wait for"
                    + " that run to end or stop it, then run the job again");
            closeAfterFailure(channel, refused);
            HELD.remove(file, jobName);
            throw refused;
        }
        FsRunLock held = new FsRunLock(file, jobName, channel, lock);
        try {
            held.record();
        } catch (IOException e) {
            // The lock itself is held; only the note for a refused second run is missing.
            LOG.warn("Job {} holds the run lock {} but could not write its pid into it", jobName, file, e);
        }
        LOG.info("Job {} holds the run lock {} ({})", jobName, file, self);
        return held;
    }

    private static void closeAfterFailure(FileChannel channel, IOException failure) {
        try {
            channel.close();
        } catch (IOException e) {
            failure.addSuppressed(e);
        }
    }

    /** @return the lock file */
    public Path file() {
        return file;
    }

    /** Empties the lock file, releases the OS lock and closes the file; idempotent, logs a failure. */
    @Override
    public void close() {
        if (!released.compareAndSet(false, true)) {
            return;
        }
        try {
            channel.truncate(0);
            lock.release();
            channel.close();
            LOG.info("Job {} released the run lock {}", jobName, file);
        } catch (IOException e) {
            LOG.warn("Job {} could not release the run lock {} cleanly; it is released when this process ends", jobName, file, e);
        } finally {
            HELD.remove(file, jobName);
        }
    }

    /** Writes who holds the lock into the (locked) file. */
    private void record() throws IOException {
        ProcessHandle me = ProcessHandle.current();
        StringBuilder text = new StringBuilder();
        text.append("pid=").append(me.pid()).append('\n');
        me.info().startInstant().ifPresent(t -> text.append("started=").append(t).append('\n'));
        text.append("job=").append(jobName).append('\n');
        text.append("locked=").append(Instant.now()).append('\n');
        channel.truncate(0);
        ByteBuffer bytes = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
        long position = 0;
        while (bytes.hasRemaining()) {
            position += channel.write(bytes, position);
        }
    }

    /** @return the holder as its lock file names it, e.g. {@code "process 4711 (started 2026-…)"} */
    private static String holder(Path file) {
        Properties p = new Properties();
        try {
            p.load(new java.io.StringReader(Files.readString(file, StandardCharsets.UTF_8)));
        } catch (IOException e) {
            return "another process (the lock file cannot be read: " + e + ")";
        }
        String pid = p.getProperty("pid");
        if (pid == null) {
            return "another process (it has not yet written its pid into the lock file)";
        }
        String started = p.getProperty("started");
        return "process " + pid + (started != null ? " (started " + started + ")" : "");
    }

    private static String describe(ProcessHandle process) {
        return "pid " + process.pid() + process.info().startInstant().map(t -> ", started " + t).orElse("");
    }
}
