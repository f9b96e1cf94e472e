package io.weir.core.checkpoint;

/**
 * What a barrier tells tasks about its checkpoint.
 *
 * @param alignment how barriers are handled
 * @param alignedTimeoutMs for {@link CheckpointAlignment#ALIGNED_WITH_TIMEOUT}: ms of alignment before switching; else 0
 * @param isFinal whether this is the final checkpoint after all bounded sources finished
 */
public record CheckpointOptions(CheckpointAlignment alignment, long alignedTimeoutMs, boolean isFinal) {
    /** @throws IllegalArgumentException if the timeout is negative */
    public CheckpointOptions {
        if (alignedTimeoutMs < 0) {
            throw new IllegalArgumentException("aligned timeout must be >= 0 ms, got " + alignedTimeoutMs);
        }
    }

    /** @return default options: aligned, not final */
    public static CheckpointOptions aligned() {
        return new CheckpointOptions(CheckpointAlignment.ALIGNED, 0, false);
    }

    /** @return whether barriers of this checkpoint overtake in-flight data (PROTOCOL.md §6) */
    public boolean isUnaligned() {
        return alignment == CheckpointAlignment.UNALIGNED;
    }

    /** @return a copy switched to unaligned (an aligned-with-timeout checkpoint whose timeout fired) */
    public CheckpointOptions toUnaligned() {
        return new CheckpointOptions(CheckpointAlignment.UNALIGNED, 0, isFinal);
    }

    /** @return a copy marked as the final checkpoint */
    public CheckpointOptions asFinal() {
        return new CheckpointOptions(alignment, alignedTimeoutMs, true);
    }
}
