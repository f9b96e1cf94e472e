package io.weir.runtime.io.network;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The debloater's computed buffer size, driven with explicit byte counts and a hand-set clock. */
class BufferDebloaterTest {
    private static final long MS = 1_000_000L;
    private static final int MAX = 32 * 1024;
    /** As the task: 200 ms target, 32 KB buffers, samples closer than 50 ms (half the 100 ms period) skipped. */
    private final BufferDebloater debloater = new BufferDebloater(200, MAX, 50 * MS);

    @Test
    void updatesBeforeAnyInputKeepFullBuffers() {
        // the task's first periodic updates ran while it was still deploying: nothing read yet
        assertThat(debloater.update(0, 1_000 * MS, 18)).isEqualTo(MAX);
        assertThat(debloater.update(0, 1_000 * MS + 20_000, 18)).isEqualTo(MAX);
        assertThat(debloater.update(0, 1_100 * MS, 18)).isEqualTo(MAX);
        assertThat(debloater.throughput()).isEqualTo(-1.0);
    }

    @Test
    void updatesQueuedBehindAStallDoNotShrinkTheBuffers() {
        long t = 1_000 * MS;
        long bytes = 1;
        debloater.update(bytes, t, 24);
        for (int i = 0; i < 5; i++) { // 100 MB/s, well above what full buffers need
            t += 100 * MS;
            bytes += 10_000_000;
            assertThat(debloater.update(bytes, t, 24)).isEqualTo(MAX);
        }
        // the task thread stalls 700 ms (reading nothing), then runs the 7 updates that queued up, back to back
        t += 700 * MS;
        for (int i = 0; i < 7; i++) {
            assertThat(debloater.update(bytes, t + i * 1_000, 24)).as("queued update %d", i).isEqualTo(MAX);
        }
        // one real interval of zero throughput halved the estimate once: 100 MB/s -> 50 MB/s
        assertThat(debloater.throughput()).isEqualTo(50_000_000.0);
    }

    @Test
    void oneStalledIntervalAtMostHalvesTheSize() {
        // the task read its first buffer, then its thread did not run for the next interval (data was queued)
        debloater.update(32_718, 1_000 * MS, 13);
        assertThat(debloater.update(32_718, 1_100 * MS, 13)).isEqualTo(MAX / 2);
        // the consumer runs again at 100 MB/s: full buffers at once
        assertThat(debloater.update(32_718 + 10_000_000, 1_200 * MS, 13)).isEqualTo(MAX);
    }

    @Test
    void sustainedZeroThroughputReachesTheMinimumAfterSevenUpdates() {
        debloater.update(1, 1_000 * MS, 24);
        int[] sizes = new int[8];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = debloater.update(1, (1_100 + 100 * i) * MS, 24);
        }
        assertThat(sizes).containsExactly(16_384, 8_192, 4_096, 2_048, 1_024, 512, 256, 256);
    }

    @Test
    void backpressuredConsumerAsksForSmallBuffers() {
        // the bp variant's counter: 200 records/s of 1 KB = 200,000 B/s, 20 buffers queued
        long t = 1_000 * MS;
        long bytes = 1;
        debloater.update(bytes, t, 20);
        int size = 0;
        for (int i = 0; i < 10; i++) {
            t += 100 * MS;
            bytes += 20_000;
            size = debloater.update(bytes, t, 20);
        }
        // 200,000 B/s * 0.2 s / 20 buffers
        assertThat(size).isEqualTo(2_000);
    }

    @Test
    void aShortSampleIsFoldedIntoTheNextFullInterval() {
        long t = 1_000 * MS;
        debloater.update(1, t, 1);
        debloater.update(1 + 5_000, t + 10 * MS, 1); // 10 ms later: skipped
        assertThat(debloater.throughput()).isEqualTo(-1.0);
        debloater.update(1 + 20_000, t + 100 * MS, 1);
        // 20,000 B over the whole 100 ms
        assertThat(debloater.throughput()).isEqualTo(200_000.0);
        // 200,000 B/s * 0.2 s / 4 buffers
        assertThat(debloater.desiredSize(4)).isEqualTo(10_000);
    }

    @Test
    void rejectsATargetBelowOneMillisecond() {
        assertThatThrownBy(() -> new BufferDebloater(0, MAX, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("buffer debloat target must be >= 1 ms, got 0");
    }

    @Test
    void rejectsANegativeMinimumSampleInterval() {
        assertThatThrownBy(() -> new BufferDebloater(200, MAX, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("minimum debloat sample interval must be >= 0 ns, got -1");
    }
}
