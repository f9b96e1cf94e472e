package io.weir.runtime.io.network;

/**
 * In-band event: event time up to {@code timestamp} (ms) is complete on this channel; records with smaller
 * timestamps that still follow are late. Sent like every event ({@link RecordWriter#broadcastEvent}): the
 * producer's partly filled buffers are flushed first, so a watermark never overtakes a record emitted before
 * it. Needs no credit. An unaligned barrier overtakes watermarks like data but persists only data buffers: a
 * restore restarts every watermark at {@link Long#MIN_VALUE} and the sources re-establish it (as in Flink).
 *
 * @param timestamp ms since the epoch; {@link Long#MAX_VALUE} at the end of input
 */
public record Watermark(long timestamp) {
}
