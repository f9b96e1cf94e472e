package io.weir.core.coordination;

import java.util.concurrent.CompletableFuture;

/**
 * Master-side state snapshotted before any task is triggered (operator coordinators such as a
 * split enumerator, PROTOCOL.md §2). Its future may complete late or never; the checkpoint's
 * timeout still applies.
 */
public interface MasterHook {
    /** @return a stable id for the hook's state in checkpoints */
    String id();

    /**
     * @return a future of the hook's state bytes for checkpoint {@code checkpointId} (stored in the
     *         checkpoint's {@code _metadata}); a null value stores nothing for this hook
     */
    CompletableFuture<byte[]> triggerCheckpoint(long checkpointId, long timestamp);

    /**
     * Restores the hook before any task of the restarted job runs.
     *
     * @param checkpointId the checkpoint the job restores from
     * @param state the bytes {@link #triggerCheckpoint} gave for it, or null if it stored nothing
     * @throws Exception if the state cannot be restored; the job then does not start
     */
    void restoreCheckpoint(long checkpointId, byte[] state) throws Exception;
}
