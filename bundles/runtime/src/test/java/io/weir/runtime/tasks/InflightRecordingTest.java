package io.weir.runtime.tasks;

import io.weir.runtime.checkpoint.RecordedInput;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.CancellationException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The input side of an unaligned checkpoint at one task: which buffers become channel state, and
 * how many bytes count as processed between the snapshot and the last barrier.
 */
class InflightRecordingTest {

    @Test
    void recordsOnlyChannelsWhoseBarrierIsMissingButCountsEveryBufferAsProcessed() {
        InflightRecording r = new InflightRecording(7);
        r.addUnconsumed(0, new byte[] {1, 2, 3});
        r.start(new int[] {1, 2});
        r.onBuffer(0, new byte[] {9, 9, 9, 9}, 4);   // barrier already in: processed, not recorded
        r.onBuffer(1, new byte[] {5, 6, 0, 0}, 2);   // only the first 2 bytes are data
        r.stop(1);
        r.onBuffer(1, new byte[] {7}, 1);            // after channel 1's barrier: processed, not recorded
        r.onBuffer(2, new byte[] {8, 8}, 2);
        assertThat(r.isDone()).isFalse();
        r.stop(2);

        assertThat(r.isDone()).isTrue();
        RecordedInput in = r.future().join();
        assertThat(in.buffers().keySet()).containsExactlyInAnyOrder(0, 1, 2);
        assertThat(in.buffers().get(0)).containsExactly(new byte[] {1, 2, 3});
        assertThat(in.buffers().get(1)).containsExactly(new byte[] {5, 6});
        assertThat(in.buffers().get(2)).containsExactly(new byte[] {8, 8});
        assertThat(in.processedBytes()).as("3 unconsumed + 4 + 2 + 1 + 2").isEqualTo(12);
    }

    @Test
    void nothingInFlightCompletesAtStartWithNothingProcessed() {
        InflightRecording r = new InflightRecording(3);
        r.start(new int[0]);
        assertThat(r.future().join()).isEqualTo(new RecordedInput(Map.of(), 0));
        r.onBuffer(0, new byte[] {1}, 1);
        assertThat(r.future().join().processedBytes()).as("buffers after completion are not counted").isZero();
    }

    @Test
    void abortFailsTheFutureSoTheCheckpointIsDeclined() {
        InflightRecording r = new InflightRecording(4);
        r.start(new int[] {0});
        r.abort(new CancellationException("checkpoint 4 aborted"));
        assertThat(r.isDone()).isTrue();
        assertThat(r.future()).isCompletedExceptionally();
    }
}
