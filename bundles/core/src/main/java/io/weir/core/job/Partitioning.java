package io.weir.core.job;

import java.util.Locale;

/** How an edge distributes records over the consumer's subtasks. */
public enum Partitioning {
    /** Producer subtask i → consumer subtask i; needs equal parallelism; chainable. */
    FORWARD,
    /** By key: key fields → key group → the consumer subtask owning it (PROTOCOL.md §7). */
    HASH,
    /** Round-robin over consumer subtasks. */
    REBALANCE,
    /** Every record to every consumer subtask. */
    BROADCAST;

    /** @return the name as written in job files */
    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
