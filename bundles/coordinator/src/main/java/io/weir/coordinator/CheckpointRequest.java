package io.weir.coordinator;

import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.coordination.CheckpointTriggerKind;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A request to trigger a checkpoint, as it passes the {@link CheckpointRequestDecider}.
 *
 * @param kind periodic, manual, final or savepoint
 * @param requestTimestamp when it was made, ms since the epoch
 * @param result completed with the checkpoint, or exceptionally with a {@code CheckpointException}
 * @param savepointDirectory for a {@link CheckpointTriggerKind#SAVEPOINT}: the directory the savepoint's own
 *        directory is created in; null for every other kind
 * @param terminate for a savepoint: it ends the job (stop-with-savepoint, Flink's synchronous savepoint), so its
 *        barriers carry the final flag; false for every other kind
 */
record CheckpointRequest(CheckpointTriggerKind kind, long requestTimestamp, CompletableFuture<CompletedCheckpoint> result,
        String savepointDirectory, boolean terminate) {
    /** @throws IllegalArgumentException if a savepoint lacks its directory, or another kind has one or terminates */
    CheckpointRequest {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(result, "result");
        if ((kind == CheckpointTriggerKind.SAVEPOINT) != (savepointDirectory != null)) {
            throw new IllegalArgumentException("a " + kind + " request " + (savepointDirectory == null
                    ? "needs a savepoint directory" : "takes no savepoint directory, got " + savepointDirectory));
        }
        if (terminate && kind != CheckpointTriggerKind.SAVEPOINT) {
            throw new IllegalArgumentException("only a savepoint can terminate the job, not a " + kind + " checkpoint");
        }
    }

    /** A request of any kind but {@link CheckpointTriggerKind#SAVEPOINT}. */
    CheckpointRequest(CheckpointTriggerKind kind, long requestTimestamp, CompletableFuture<CompletedCheckpoint> result) {
        this(kind, requestTimestamp, result, null, false);
    }

    /** @return whether this is a savepoint request */
    boolean isSavepoint() {
        return kind == CheckpointTriggerKind.SAVEPOINT;
    }

    /** @return whether the periodic scheduler made it (such requests are dropped, never queued) */
    boolean isPeriodic() {
        return kind == CheckpointTriggerKind.PERIODIC;
    }
}
