package io.weir.core.barrier;

/**
 * Barrier timings of one checkpoint at one task (PROTOCOL.md §5).
 *
 * @param startDelayMs first barrier arrival − checkpoint creation time, ms (≥ 0)
 * @param alignmentDurationNanos last barrier arrival − first barrier arrival, ns (0 for one channel)
 * @param processedBytesDuringAlignment bytes read from not-yet-blocked channels while aligning
 */
public record BarrierAlignment(long startDelayMs, long alignmentDurationNanos, long processedBytesDuringAlignment) {
}
