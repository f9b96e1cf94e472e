package io.weir.api.sink;

import io.weir.api.Row;
import io.weir.api.operator.OperatorContext;
import io.weir.api.serialization.TypeSerializer;

import java.util.Collection;

/**
 * A sink that writes exactly once through transactions (PROTOCOL.md §8). The runtime wraps it in
 * an operator that:
 * <ol>
 * <li>opens a transaction and {@link #write}s rows into it;</li>
 * <li>at each checkpoint's {@code prepareSnapshotPreBarrier}, {@link #preCommit}s the open transaction
 *     (phase 1), records the handle it returns in the checkpoint and opens a new one;</li>
 * <li>on {@code notifyCheckpointComplete(n)} {@link #commit}s every pre-committed transaction of
 *     checkpoints ≤ n (phase 2);</li>
 * <li>after a restore, commits again every transaction the checkpoint recorded (so commit must be
 *     idempotent: committing a committed transaction is a no-op) and calls
 *     {@link #abortLeftovers} so transactions opened after the checkpoint are removed.</li>
 * </ol>
 * All calls happen on the sink task's thread.
 *
 * @param <T> the transaction handle: small, immutable, serializable with {@link #transactionSerializer}
 */
public interface TwoPhaseCommittingSink<T> {
    /** Called once before any transaction. */
    default void open(OperatorContext context) throws Exception {
    }

    /** Opens a new transaction. */
    T beginTransaction() throws Exception;

    /** Writes one row into the transaction; invisible to readers until committed. */
    void write(T transaction, Row row) throws Exception;

    /**
     * Phase 1: makes the transaction durable and ready to commit; no writes follow.
     *
     * @return the handle to record in the checkpoint: {@code transaction} itself, or a copy that
     *         carries more (e.g. how many rows it holds, so that a sink restored from the checkpoint can
     *         tell an empty transaction from one whose data was lost)
     */
    T preCommit(T transaction) throws Exception;

    /** Phase 2: makes the transaction visible. Must be idempotent. */
    void commit(T transaction) throws Exception;

    /** Drops a transaction that will never be committed. */
    void abort(T transaction) throws Exception;

    /**
     * After a restore: remove every transaction of this subtask that is neither committed nor in
     * {@code keep} (those were opened after the restored checkpoint and their data will be replayed).
     *
     * @param keep the transactions the restored checkpoint recorded (already re-committed)
     */
    void abortLeftovers(Collection<T> keep) throws Exception;

    /** @return the serializer of transaction handles, stored in checkpoints */
    TypeSerializer<T> transactionSerializer();

    /** Releases resources; always called, also after a failure. */
    default void close() throws Exception {
    }
}
