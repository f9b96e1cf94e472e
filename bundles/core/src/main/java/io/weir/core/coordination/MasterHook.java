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

    /** @return a future of the hook's state bytes for checkpoint {@code checkpointId} */
    CompletableFuture<byte[]> triggerCheckpoint(long checkpointId, long timestamp);
}
