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
 * <li>after a restore, commits again every transaction the checkpoint recorded that this subtask
 *     was assigned (so commit must be idempotent: committing a committed transaction is a no-op); with
 *     another parallelism than the checkpoint's, the recorded transactions are dealt round-robin over
 *     the new subtasks, each committed by exactly one;</li>
 * <li>at the first checkpoint completed after a restore (when every subtask has committed what it
 *     was assigned) calls {@link #abortLeftovers} so transactions opened after the restored
 *     checkpoint are removed; on a fresh start, calls it right after {@link #open}.</li>
 * </ol>
 * All calls happen on the sink task's thread.
 *
 * <p><b>Across plugin versions</b> (the node moving a job to another version of the sink's plugin, or back after a
 * failed upgrade: {@code docs/plugins.md}, "Upgrades"): the transactions one version pre-committed are committed by
 * the other, from the savepoint the move took. So the handles this sink records ({@link #transactionSerializer}'s
 * bytes) and whatever they point to outside (file names, prepared transaction ids) are part of the plugin's state
 * schema: every version must read the handles of every version it may be moved to or from (both directions, as a
 * rollback restores the newer version's savepoint on the older version), and {@link #commit} of a handle written by
 * another version must be as idempotent as of its own. A version that changes the handle format keeps reading the
 * old one (e.g. a leading format byte), and a version that cannot read a newer format must fail in restore, so the
 * node rolls back or fails the move instead of dropping data.
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
     * Whether {@link #write} may keep a reference to the row after it returns (e.g. buffers rows until
     * {@link #preCommit}); the runtime's sink operator answers {@link io.weir.api.operator.Output#retainsRows()} of
     * its chained input with it.
     *
     * @return true (the default), or false when {@code write} is done with the row (it serialized, counted or
     *         dropped it) when it returns
     */
    default boolean retainsRows() {
        return true;
    }

    /**
     * Phase 1: makes the transaction durable and ready to commit; no writes follow.
     *
     * @return the handle to record in the checkpoint: {@code transaction} itself, or a copy that
     *         carries more (e.g. how many rows it holds, so that a sink restored from the checkpoint can
     *         tell an empty transaction from one whose data was lost)
     */
    T preCommit(T transaction) throws Exception;

    /**
     * Phase 1 for checkpoint {@code checkpointId}: what the runtime calls at that checkpoint's barrier. A
     * sink that names its external transactions after the checkpoint (e.g. a database's prepared
     * transaction id) overrides this; the default ignores the id and calls {@link #preCommit(Object)}.
     *
     * @param checkpointId the checkpoint whose barrier arrived, at least 1
     * @return as {@link #preCommit(Object)}
     */
    default T preCommit(T transaction, long checkpointId) throws Exception {
        return preCommit(transaction);
    }

    /** Phase 2: makes the transaction visible. Must be idempotent. */
    void commit(T transaction) throws Exception;

    /** Drops a transaction that will never be committed. */
    void abort(T transaction) throws Exception;

    /**
     * Removes every transaction that is neither committed nor in {@code keep} nor open in this
     * instance, of this subtask and of the subtasks {@code j >= parallelism} with
     * {@code j % parallelism == subtaskIndex} (those an earlier run with a higher parallelism had):
     * they were opened after the restored checkpoint and their data will be replayed. Never touches
     * transactions of the other subtasks of this run.
     *
     * @param keep transactions pre-committed by this instance and not committed yet
     */
    void abortLeftovers(Collection<T> keep) throws Exception;

    /** @return the serializer of transaction handles, stored in checkpoints */
    TypeSerializer<T> transactionSerializer();

    /** Releases resources; always called, also after a failure. */
    default void close() throws Exception {
    }
}
