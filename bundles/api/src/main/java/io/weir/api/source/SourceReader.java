package io.weir.api.source;

import io.weir.api.operator.CheckpointListener;
import io.weir.api.operator.OperatorContext;
import io.weir.api.operator.Output;

/**
 * Reads one subtask's share of a source. Driven by the source task's mailbox thread: between two
 * {@link #pollNext} calls the task runs mails, so a checkpoint always sees a consistent position.
 *
 * <p>A reader must be replayable: its position goes into operator state in {@link #snapshotState}
 * and is read back in {@link #initializeState}, so that after a failure the reader resumes exactly
 * after the last record covered by the restored checkpoint (PROTOCOL.md §1 step 2).
 */
public interface SourceReader extends CheckpointListener {
    /** Registers operator state and restores the position from it if {@code context.isRestored()}. */
    void initializeState(OperatorContext context) throws Exception;

    /**
     * Emits a small batch of rows (keep it under about a millisecond of work so mails stay timely).
     *
     * @return what happened
     * @throws Exception fails the task (e.g. the input file vanished)
     */
    PollStatus pollNext(Output out) throws Exception;

    /** Stores the current position into operator state: the synchronous part of the source's snapshot. */
    void snapshotState(long checkpointId) throws Exception;

    /** @return how long the task may wait after {@link PollStatus#NOTHING_AVAILABLE}, in ns (default 1 ms) */
    default long idleWaitNanos() {
        return 1_000_000L;
    }

    /** Releases resources; always called, also after a failure. */
    default void close() throws Exception {
    }
}
