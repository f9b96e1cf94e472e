package io.weir.core.ha;

/**
 * Hands out checkpoint ids (PROTOCOL.md §2). In HA mode it lives in a replicated store so ids never
 * go backwards after a coordinator failover. Thread-safe.
 */
public interface CheckpointIDCounter {
    /** @return the next id (the first is 1), and advances the counter */
    long getAndIncrement() throws Exception;

    /** @return the id the next {@link #getAndIncrement} returns */
    long get() throws Exception;

    /** Sets the next id (used after a restore so new ids exceed the restored one). */
    void setCount(long next) throws Exception;
}
