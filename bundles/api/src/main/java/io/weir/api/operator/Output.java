package io.weir.api.operator;

import io.weir.api.Row;

/**
 * Where an operator emits rows: the next operator of its chain, or the network writer when it is
 * the chain's tail. Task thread only; never blocks (backpressure is applied between records).
 */
@FunctionalInterface
public interface Output {
    /** Emits one row downstream. The row must not be modified afterwards. */
    void collect(Row row);
}
