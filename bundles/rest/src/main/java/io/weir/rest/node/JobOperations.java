package io.weir.rest.node;

import io.weir.core.engine.JobStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Asynchronous operations on the node's jobs, as Flink's REST API runs them: a manual checkpoint, a
 * savepoint and stop-with-savepoint are triggered here, answer a 32-hex request id at once, and their
 * outcome is looked up by job and request id ({@link #status}). Savepoint targets must lie inside the
 * node's savepoint directory.
 *
 * <p>The newest {@link #DEFAULT_RETAINED} operations per job are kept in memory (like Flink's operation
 * cache, which keeps completed operations for a while); an older request id is forgotten and its status
 * is then unknown (404). Thread-safe: the operation tables are guarded by {@code this} (never held while
 * calling the engine), and each operation's outcome is a {@link CompletableFuture}.
 */
public final class JobOperations {
    private static final Logger LOG = LoggerFactory.getLogger(JobOperations.class);
    private static final HexFormat HEX = HexFormat.of();

    /** What an operation does. */
    public enum Kind {
        /** A manual checkpoint; its result is the checkpoint id. */
        CHECKPOINT,
        /** A savepoint; its result is the savepoint's directory. */
        SAVEPOINT,
        /** Stop-with-savepoint; its result is the savepoint's directory. */
        STOP
    }

    /**
     * One triggered operation.
     *
     * @param jobId the job's id
     * @param kind what it does
     * @param result completes with the checkpoint id ({@link Kind#CHECKPOINT}, a {@link Long}) or the savepoint's
     *        absolute directory (a {@link Path}), or exceptionally with the failure
     */
    public record Operation(String jobId, Kind kind, CompletableFuture<Object> result) {
    }

    /** Operations kept per job. */
    public static final int DEFAULT_RETAINED = 64;

    private final NodeJobs jobs;
    private final Path savepointDirectory;
    private final int retained;
    private final SecureRandom random = new SecureRandom();
    /** By request id; guarded by {@code this}. */
    private final Map<String, Operation> operations = new HashMap<>();
    /** Per job id: its request ids, oldest first; guarded by {@code this}. */
    private final Map<String, ArrayDeque<String>> byJob = new HashMap<>();

    /**
     * @param jobs the node's jobs
     * @param savepointDirectory the only directory (absolute) under which savepoints may be written
     * @throws IllegalArgumentException if {@code savepointDirectory} is relative
     */
    public JobOperations(NodeJobs jobs, Path savepointDirectory) {
        this(jobs, savepointDirectory, DEFAULT_RETAINED);
    }

    /**
     * @param jobs the node's jobs
     * @param savepointDirectory the only directory (absolute) under which savepoints may be written
     * @param retained operations kept per job (the oldest is forgotten when a newer one is triggered), at least 1
     * @throws IllegalArgumentException if {@code savepointDirectory} is relative or {@code retained} is below 1
     */
    public JobOperations(NodeJobs jobs, Path savepointDirectory, int retained) {
        if (!savepointDirectory.isAbsolute()) {
            throw new IllegalArgumentException("the node's savepoint directory must be absolute, got " + savepointDirectory);
        }
        if (retained < 1) {
            throw new IllegalArgumentException("operations retained per job must be at least 1, got " + retained);
        }
        this.jobs = jobs;
        this.savepointDirectory = savepointDirectory.normalize();
        this.retained = retained;
    }

    /** @return the directory savepoint targets must lie in (absolute, normalized) */
    public Path savepointDirectory() {
        return savepointDirectory;
    }

    /**
     * Triggers a manual checkpoint through the job's request decider.
     *
     * @param idOrName job id or unique name ({@link NodeJobs#find})
     * @return the request id (32 hex digits)
     * @throws JobNotFoundException if there is no such job
     * @throws JobConflictException if the job is not RUNNING
     */
    public String checkpoint(String idOrName) {
        NodeJob job = running(idOrName, "checkpoint");
        LOG.info("Triggering a checkpoint of job {} ({}) on request", job.name(), job.id());
        return register(job, Kind.CHECKPOINT, job.handle().triggerCheckpoint().thenApply(c -> (Object) c.checkpointId()));
    }

    /**
     * Triggers a savepoint; the job keeps running.
     *
     * @param idOrName job id or unique name
     * @param target where the savepoint's directory is created: null for the savepoint directory itself, else
     *        absolute or relative to it; must lie inside it
     * @return the request id
     * @throws JobNotFoundException if there is no such job
     * @throws JobConflictException if the job is not RUNNING
     * @throws PathNotAllowedException if {@code target} lies outside the savepoint directory
     */
    public String savepoint(String idOrName, String target) {
        Path dir = allowedTarget(target);
        NodeJob job = running(idOrName, "take a savepoint of");
        LOG.info("Triggering a savepoint of job {} ({}) into {} on request", job.name(), job.id(), dir);
        return register(job, Kind.SAVEPOINT, job.handle().triggerSavepoint(Optional.of(dir)).thenApply(p -> (Object) p));
    }

    /**
     * Stops the job with a final savepoint ({@link io.weir.core.engine.JobHandle#stopWithSavepoint}).
     *
     * @param idOrName job id or unique name
     * @param target as in {@link #savepoint}
     * @param drain whether sources get end-of-input before the savepoint
     * @return the request id; the operation completes once the job is FINISHED
     * @throws JobNotFoundException if there is no such job
     * @throws JobConflictException if the job is not RUNNING
     * @throws PathNotAllowedException if {@code target} lies outside the savepoint directory
     */
    public String stop(String idOrName, String target, boolean drain) {
        Path dir = allowedTarget(target);
        NodeJob job = running(idOrName, "stop");
        LOG.info("Stopping job {} ({}) with a savepoint into {} (drain: {}) on request", job.name(), job.id(), dir, drain);
        return register(job, Kind.STOP, job.handle().stopWithSavepoint(Optional.of(dir), drain).thenApply(p -> (Object) p));
    }

    /**
     * @param idOrName job id or unique name of the job the operation was triggered on
     * @param requestId the id {@link #checkpoint}, {@link #savepoint} or {@link #stop} answered
     * @param kinds the kinds the caller's path serves (savepoint status serves savepoints and stops)
     * @return the operation
     * @throws JobNotFoundException if there is no such job, or no such operation of that job and kind (also one
     *         forgotten because {@link #DEFAULT_RETAINED} newer ones were triggered on the job)
     */
    public Operation status(String idOrName, String requestId, Kind... kinds) {
        NodeJob job = jobs.find(idOrName);
        Operation op;
        synchronized (this) {
            op = operations.get(requestId);
        }
        if (op != null && op.jobId().equals(job.id())) {
            for (Kind k : kinds) {
                if (op.kind() == k) {
                    return op;
                }
            }
        }
        throw new JobNotFoundException("no operation with request id '" + requestId + "' on job " + job.name() + " ("
                + job.id() + "); the id is the 'request-id' its POST answered, and the node keeps the newest " + retained
                + " operations per job");
    }

    /**
     * @param path a savepoint (or retained checkpoint) directory to restore from: absolute, or relative to the
     *        savepoint directory
     * @return the absolute path
     * @throws PathNotAllowedException if it lies outside the savepoint directory
     */
    public Path allowedSavepointPath(String path) {
        return inside(path, "savepoint path");
    }

    /**
     * @param target a requested savepoint target, or null/blank for the savepoint directory
     * @return the absolute target
     * @throws PathNotAllowedException if it lies outside the savepoint directory
     */
    Path allowedTarget(String target) {
        if (target == null || target.isBlank()) {
            return savepointDirectory;
        }
        return inside(target, "target directory");
    }

    private Path inside(String target, String what) {
        Path requested;
        try {
            requested = Path.of(target.startsWith("file://") ? target.substring("file://".length()) : target);
        } catch (java.nio.file.InvalidPathException e) {
            throw new PathNotAllowedException(what + " '" + target + "' is not a valid path: " + e.getReason());
        }
        Path resolved = savepointDirectory.resolve(requested).normalize();
        if (!resolved.startsWith(savepointDirectory)) {
            throw new PathNotAllowedException(what + " '" + target + "' is outside the node's savepoint directory "
                    + savepointDirectory + "; give a directory inside it (or configure weir.node.savepoint-dir)");
        }
        Path real = realPath(resolved, target, what);
        if (!real.startsWith(realPath(savepointDirectory, savepointDirectory.toString(), "savepoint directory"))) {
            throw new PathNotAllowedException(what + " '" + target + "' leads through a symbolic link to " + real
                    + ", outside the node's savepoint directory " + savepointDirectory + "; give a directory inside it");
        }
        return resolved;
    }

    /**
     * The path with every symbolic link of its existing part resolved: the nearest existing entry
     * (a link itself counts) is resolved with {@link Path#toRealPath}, the part not created yet appended.
     *
     * @throws PathNotAllowedException if an existing link cannot be resolved (dangling, a loop, unreadable)
     */
    private static Path realPath(Path absolute, String target, String what) {
        Path existing = absolute;
        while (existing != null && !java.nio.file.Files.exists(existing, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return absolute;
        }
        try {
            return existing.toRealPath().resolve(existing.relativize(absolute)).normalize();
        } catch (java.io.IOException e) {
            throw new PathNotAllowedException(what + " '" + target + "' cannot be resolved (" + e
                    + "); give a directory inside the node's savepoint directory");
        }
    }

    private NodeJob running(String idOrName, String what) {
        NodeJob job = jobs.find(idOrName);
        JobStatus status = job.status();
        if (status != JobStatus.RUNNING) {
            throw new JobConflictException("cannot " + what + " job " + job.name() + " (" + job.id() + "): it is " + status
                    + ", not RUNNING");
        }
        return job;
    }

    private String register(NodeJob job, Kind kind, CompletableFuture<Object> result) {
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        String requestId = HEX.formatHex(bytes);
        synchronized (this) {
            operations.put(requestId, new Operation(job.id(), kind, result));
            ArrayDeque<String> ids = byJob.computeIfAbsent(job.id(), k -> new ArrayDeque<>());
            ids.addLast(requestId);
            while (ids.size() > retained) {
                operations.remove(ids.removeFirst());
            }
        }
        result.whenComplete((r, e) -> {
            if (e != null) {
                Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                LOG.warn("{} {} of job {} ({}) failed: {}", kind, requestId, job.name(), job.id(), String.valueOf(cause));
            } else {
                LOG.info("{} {} of job {} ({}) completed: {}", kind, requestId, job.name(), job.id(), r);
            }
        });
        return requestId;
    }
}
