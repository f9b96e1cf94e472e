package io.weir.api.source;

/** What a {@link SourceReader#pollNext} call found. */
public enum PollStatus {
    /** Rows were emitted and more may follow at once. */
    MORE_AVAILABLE,
    /** Nothing to emit now; the task waits up to {@link SourceReader#idleWaitNanos()} (or for a mail). */
    NOTHING_AVAILABLE,
    /** The (bounded) input is exhausted; pollNext will not be called again. */
    END_OF_INPUT
}
