package io.weir.core.storage;

import io.weir.core.checkpoint.CheckpointMetadata;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Checkpoint storage of one job (PROTOCOL.md §7): a directory per checkpoint
 * ({@code <dir>/<job>/chk-<id>/}) holding state files and, written last, {@code _metadata}.
 * Thread-safe: the coordinator and every task share one instance.
 */
public interface CheckpointStorage {
    /**
     * Creates checkpoint {@code checkpointId}'s location (coordinator side, before triggering).
     *
     * @throws IOException if the directory cannot be created, naming it
     */
    CheckpointStreamFactory initCheckpoint(long checkpointId) throws IOException;

    /**
     * Creates the location of savepoint {@code checkpointId} (coordinator side, before triggering): a new
     * directory {@code savepoint-<job>-<6 hex digits>/} under {@code targetDirectory}, outside the job's
     * checkpoint directory (PROTOCOL.md §7). From then on {@link #resolveCheckpoint}, {@link #finalizeCheckpoint}
     * and {@link #discardCheckpoint} of this id use it; once finalized it is never discarded by this storage.
     * Every state file of the savepoint is written inside it, and its {@code _metadata} names them by relative
     * paths, so the directory can be moved or copied and still restores.
     *
     * @param checkpointId the savepoint's id (from the same counter as checkpoints)
     * @param targetDirectory the parent directory; created if missing
     * @throws IOException naming the directory if it cannot be created
     * @throws UnsupportedOperationException if this storage has no savepoints (the default)
     */
    default CheckpointStreamFactory initSavepoint(long checkpointId, String targetDirectory) throws IOException {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot write savepoints");
    }

    /** @return the stream factory of a location created by {@link #initCheckpoint} or {@link #initSavepoint} (task side) */
    CheckpointStreamFactory resolveCheckpoint(long checkpointId);

    /**
     * Writes {@code _metadata} durably (temporary file, fsync, atomic rename): after this returns
     * the checkpoint is complete.
     *
     * @return the checkpoint's external pointer (its directory; for a savepoint, the savepoint's directory)
     * @throws IOException if writing fails; the checkpoint is then not complete
     */
    String finalizeCheckpoint(CheckpointMetadata metadata) throws IOException;

    /**
     * Reads a checkpoint's {@code _metadata}.
     *
     * @param pointer a checkpoint directory or its {@code _metadata} file
     * @throws IOException if it is missing, truncated, of an unknown version or corrupt, naming the file
     */
    CheckpointMetadata loadCheckpoint(String pointer) throws IOException;

    /**
     * Reads a checkpoint's or savepoint's {@code _metadata} to restore from it, checking its state as
     * {@link #findRetainedCheckpoints} checks the newest checkpoint's (the default checks nothing more than
     * {@link #loadCheckpoint}).
     *
     * @param pointer a checkpoint or savepoint directory or its {@code _metadata} file, wherever it is now
     * @throws IOException as {@link #loadCheckpoint}, or if a state file is missing or damaged (naming it)
     */
    default CheckpointMetadata loadCheckpointForRestore(String pointer) throws IOException {
        return loadCheckpoint(pointer);
    }

    /**
     * Takes this job's run lock: while one run of the job holds it, no other run of the same job (in this
     * or another process) can take it, so two runs never share one checkpoint location. A job master
     * takes it before it reads or deletes anything in the location and releases it when the job ends;
     * if the process dies (even by {@code kill -9}) the operating system releases it.
     *
     * <p>The default takes no lock, for storages no second run can reach.
     *
     * @return the held lock; {@link RunLock#close()} releases it
     * @throws IOException if another run holds the lock (the message names its process when known, and
     *         what to do), or the lock cannot be taken (naming the lock file)
     */
    default RunLock lockRun() throws IOException {
        return () -> { };
    }

    /**
     * Records durably, in the job's checkpoint directory, that savepoint {@code checkpointId} completed at
     * {@code pointer}. Called after its {@code _metadata} is durable and before any task is notified (sinks commit
     * on that notification): until a newer checkpoint completes, the savepoint is what the job must resume from,
     * also in a new process. A checkpoint completing later makes older records obsolete (the storage may delete
     * them). The default records nothing.
     *
     * @throws IOException naming the file if the record cannot be written durably
     */
    default void recordSavepoint(long checkpointId, String pointer) throws IOException {
    }

    /**
     * @return the newest savepoint recorded by {@link #recordSavepoint} and not yet forgotten, empty if none
     * @throws IOException if the job directory or the record cannot be read, naming it
     */
    default Optional<RecordedSavepoint> latestRecordedSavepoint() throws IOException {
        return Optional.empty();
    }

    /**
     * Deletes every savepoint record (not the savepoints): after a stop-with-savepoint the job resumes only when
     * told to ({@code --from-savepoint}). The default does nothing.
     *
     * @throws IOException naming the record that cannot be deleted
     */
    default void forgetSavepoints() throws IOException {
    }

    /**
     * A savepoint recorded in a job's checkpoint directory.
     *
     * @param checkpointId the savepoint's id
     * @param pointer its directory when it completed (it may have been moved since)
     */
    record RecordedSavepoint(long checkpointId, String pointer) {
    }

    /** A lock taken by {@link #lockRun()}. */
    interface RunLock extends AutoCloseable {
        /** Releases the lock. Idempotent; never throws (a failure is logged: the process ending releases it too). */
        @Override
        void close();
    }

    /**
     * @return the directory of the newest checkpoint of this job that has a {@code _metadata}, empty if none
     * @throws IOException if the job directory cannot be listed, or if that newest {@code _metadata}
     *         cannot be read: the checkpoint completed, so its transactions may be committed, and silently
     *         restoring an older one would break exactly-once; the message says how to proceed
     */
    Optional<String> findLatestCompletedCheckpoint() throws IOException;

    /**
     * @return the highest checkpoint id this storage has a location for, complete or not ({@code chk-<id>}
     *         directories), 0 if none; a new id must be above it. The default returns 0 (it knows of none)
     * @throws IOException if the locations cannot be listed
     */
    default long highestCheckpointId() throws IOException {
        return 0;
    }

    /**
     * The checkpoints a restarted job keeps as its retained ones (PROTOCOL.md §7, {@code num-retained}), so
     * that they are subsumed and discarded in order instead of staying on disk forever.
     *
     * @param max how many to return at most, ≥ 1
     * <p>This is what a restore starts from, so a storage that checksums state verifies the newest
     * checkpoint's state here, before any task is deployed on it.
     *
     * @return pointers of up to {@code max} newest checkpoints that have a {@code _metadata}, newest first;
     *         the first is {@link #findLatestCompletedCheckpoint()}'s (the default returns only that one)
     * @throws IOException as {@link #findLatestCompletedCheckpoint()}, or if the newest checkpoint's state
     *         is missing or damaged (naming the file and how to proceed)
     */
    default List<String> findRetainedCheckpoints(int max) throws IOException {
        return findLatestCompletedCheckpoint().map(List::of).orElse(List.of());
    }

    /**
     * Deletes a checkpoint's directory (subsumed, aborted or expired), or the directory of a savepoint that
     * was created by {@link #initSavepoint} but not finalized (aborted); a finalized savepoint is never
     * deleted. Logs and swallows nothing silently.
     */
    void discardCheckpoint(long checkpointId) throws IOException;

    /**
     * Records durably that the job finished with final checkpoint {@code checkpointId}: every sink
     * committed it and every task ended. A job whose newest checkpoint is final but not marked
     * finished was stopped (killed) between the final checkpoint's completion and its commits, so
     * its next run resumes from that checkpoint and commits what is pending instead of starting over.
     * The default records nothing, so such a storage's final checkpoints are always resumed from
     * (which commits nothing twice, but a finished job never starts fresh).
     *
     * @param checkpointId a completed final checkpoint of this job
     * @throws IOException if the record cannot be written durably, naming the path
     */
    default void markFinished(long checkpointId) throws IOException {
    }

    /**
     * @return whether {@link #markFinished} recorded {@code checkpointId}
     * @throws IOException if the storage cannot be read
     */
    default boolean isMarkedFinished(long checkpointId) throws IOException {
        return false;
    }

    /**
     * Deletes every checkpoint location of this job except {@code keep}: checkpoints older than the
     * retained ones and locations of checkpoints that never completed (a killed run leaves them).
     * Called when a job resumes from this storage, once the retained checkpoints are chosen and
     * before any new checkpoint starts. The default deletes nothing.
     *
     * @param keep ids of the checkpoints the resumed job keeps (its retained checkpoints)
     * @throws IOException if the locations cannot be listed; a location that cannot be deleted is
     *         logged and skipped
     */
    default void discardAllExcept(java.util.Set<Long> keep) throws IOException {
    }

    /**
     * Deletes one shared file (docs/checkpoint-format.md, "Shared state") that no retained checkpoint refers to
     * any more. Only the coordinator's shared-state registry calls this. The default deletes nothing.
     *
     * @param file the file's handle as the metadata names it
     * @throws IOException naming the file if it exists and cannot be deleted
     */
    default void discardSharedFile(io.weir.core.checkpoint.StreamStateHandle file) throws IOException {
    }

    /**
     * Deletes the shared files written by checkpoint {@code checkpointId} (aborted, expired, or a late
     * acknowledgement of one) except those in {@code referenced}. The default deletes nothing.
     *
     * @param referenced registry keys ({@link io.weir.core.checkpoint.SharedFileHandle#registryKey()}) of the
     *        files retained checkpoints refer to
     * @throws IOException if the location cannot be listed; a file that cannot be deleted is logged and skipped
     */
    default void discardSharedStateOf(long checkpointId, java.util.Set<String> referenced) throws IOException {
    }

    /**
     * Deletes every shared file of this job not in {@code referenced}: what a killed run left (files of
     * checkpoints that never completed, or that were subsumed while the process died). Called when a job
     * resumes, after the retained checkpoints are registered, before any new checkpoint starts. The default
     * deletes nothing.
     *
     * @param referenced registry keys of the files the retained checkpoints refer to
     * @throws IOException if the location cannot be listed; a file that cannot be deleted is logged and skipped
     */
    default void discardUnreferencedSharedState(java.util.Set<String> referenced) throws IOException {
    }
}
