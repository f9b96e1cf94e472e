package io.weir.coordinator;

import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.coordination.CheckpointTriggerKind;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A request to trigger a checkpoint, as it passes the {@link CheckpointRequestDecider}.
 *
 * @param kind periodic, manual or final
 * @param requestTimestamp when it was made, ms since the epoch
 * @param result completed with the checkpoint, or exceptionally with a {@code CheckpointException}
 */
record CheckpointRequest(CheckpointTriggerKind kind, long requestTimestamp, CompletableFuture<CompletedCheckpoint> result) {
    CheckpointRequest {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(result, "result");
    }

    /** @return whether the periodic scheduler made it (such requests are dropped, never queued) */
    boolean isPeriodic() {
        return kind == CheckpointTriggerKind.PERIODIC;
    }
}
