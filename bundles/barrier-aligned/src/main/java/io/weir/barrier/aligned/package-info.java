/**
 * Barrier handlers that never persist in-flight data (PROTOCOL.md §4): the aligned handler of
 * EXACTLY_ONCE mode ({@link io.weir.barrier.aligned.AlignedBarrierHandler}, blocks channels until
 * every channel delivered the barrier) and the barrier tracker of AT_LEAST_ONCE mode
 * ({@link io.weir.barrier.aligned.BarrierTracker}, never blocks). Both are plain Java; the
 * factories are also Declarative Services components and {@code ServiceLoader} providers.
 * Private package: the bundle exports nothing.
 */
package io.weir.barrier.aligned;
