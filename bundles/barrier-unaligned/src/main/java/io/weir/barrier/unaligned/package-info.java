/**
 * The barrier handler for unaligned and aligned-with-timeout checkpoints (PROTOCOL.md §4, §6):
 * {@link io.weir.barrier.unaligned.UnalignedBarrierHandler} decides per barrier, from its
 * {@link io.weir.core.checkpoint.CheckpointOptions}, whether to align (blocking channels), to
 * snapshot at once and have the runtime persist in-flight input data, or to start aligned and
 * switch to unaligned when the aligned-checkpoint timeout fires. Plain Java; the factory is also a
 * Declarative Services component and a {@code ServiceLoader} provider. Private package: the bundle
 * exports nothing.
 */
package io.weir.barrier.unaligned;
