package io.weir.plugin.filesink;

import java.util.EnumSet;
import java.util.Set;

/**
 * Life of one {@link FileSink} transaction inside one sink instance:
 * <pre>
 *   OPEN ──first write──► WRITING ──preCommit──► PRE_COMMITTED ──commit──► COMMITTED
 *     │                      │                         │
 *     └──preCommit (empty)───┼────────────────────────►│
 *     └──────────────────────┴──────── abort ──────────┴──────────────────► ABORTED
 * </pre>
 * OPEN has no file yet (files are created on the first write, so an empty transaction never
 * creates one). Transitions are checked in {@link #transition}.
 */
enum TransactionState {
    OPEN, WRITING, PRE_COMMITTED, COMMITTED, ABORTED;

    private Set<TransactionState> next() {
        return switch (this) {
            case OPEN -> EnumSet.of(WRITING, PRE_COMMITTED, ABORTED);
            case WRITING -> EnumSet.of(WRITING, PRE_COMMITTED, ABORTED);
            case PRE_COMMITTED -> EnumSet.of(COMMITTED, ABORTED);
            case COMMITTED -> EnumSet.of(COMMITTED);
            case ABORTED -> EnumSet.of(ABORTED);
        };
    }

    /**
     * @return {@code target} if it may follow this state
     * @throws IllegalStateException naming both states and the transaction otherwise
     */
    TransactionState transition(TransactionState target, FileTransaction txn) {
        if (!next().contains(target)) {
            throw new IllegalStateException("file transaction " + txn.inProgressPath() + " cannot go from "
                    + this + " to " + target);
        }
        return target;
    }
}
