package io.weir.api.operator;

import io.weir.api.Row;

/**
 * Where an operator emits rows: the next operator of its chain, or the network writer when it is
 * the chain's tail. Task thread only; never blocks (backpressure is applied between records).
 */
@FunctionalInterface
public interface Output {
    /**
     * Emits one row downstream. The row must not be modified afterwards, unless {@link #retainsRows()} is false
     * and the row is a {@link Row.Reusable}'s.
     */
    void collect(Row row);

    /**
     * Whether a row given to {@link #collect} may still be referenced after {@code collect} returns, by this output
     * or by anything it hands the row to. When false, the caller may emit the same {@link Row.Reusable} row again
     * with other values (Flink's object reuse, but declared by each receiver, not switched on for a whole job). Asked
     * per row by emitters that reuse rows; the answer of one output must not change while its task runs.
     *
     * @return true (the default: rows are kept, e.g. collected by a test or a sink that buffers them), or false
     *         when the receiver is done with the row, its values array and its cached hash when {@code collect}
     *         returns (it may keep the row's field values, which are immutable objects)
     */
    default boolean retainsRows() {
        return true;
    }
}
