package io.weir.plugin.datagen;

import io.weir.api.Row;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.SourceFactory;
import io.weir.api.source.PollStatus;
import io.weir.api.source.SourceReader;
import io.weir.api.testing.InMemoryOperatorContext;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DatagenReaderTest {

    @Test
    void limitIsSharedAcrossSubtasksAndEndsTheInput() throws Exception {
        PluginConfig config = config(Map.of("limit", 1001L));
        List<Row> first = drain(started(new DatagenSourceFactory().create(config, DatagenSettings.SCHEMA), 0, 2));
        List<Row> second = drain(started(new DatagenSourceFactory().create(config, DatagenSettings.SCHEMA), 1, 2));

        assertThat(first).hasSize(501);
        assertThat(second).hasSize(500);
        assertThat(first.stream().map(r -> r.getLong(1)).toList())
                .isEqualTo(java.util.stream.LongStream.range(0, 501).boxed().toList());
        assertThat(new DatagenSourceFactory().isBounded(config)).isTrue();
        assertThat(new DatagenSourceFactory().isBounded(config(Map.of()))).isFalse();
    }

    @Test
    void keysAreSeqModuloKeysSoEveryKeyGetsTheSameShare() throws Exception {
        SourceReader reader = new DatagenSourceFactory().create(
                config(Map.of("limit", 1600L, "keys", 16L, "record-size", 7L)), DatagenSettings.SCHEMA);
        List<Row> rows = drain(started(reader, 0, 1));

        assertThat(rows).hasSize(1600).allSatisfy(r -> {
            assertThat(r.getLong(0)).isEqualTo(r.getLong(1) % 16);
            assertThat((byte[]) r.get("payload")).hasSize(7);
            assertThat(r.get("ts")).isInstanceOf(Long.class);
        });
        Map<Long, Long> perKey = rows.stream().collect(Collectors.groupingBy(r -> r.getLong(0), Collectors.counting()));
        assertThat(perKey).hasSize(16).allSatisfy((key, count) -> assertThat(count).isEqualTo(100L));
    }

    @Test
    void rateIsPacedByElapsedTimeAndIdleWaitPointsAtTheNextDueRecord() throws Exception {
        AtomicLong now = new AtomicLong(5_000_000_000L);
        DatagenReader reader = new DatagenReader(new DatagenSettings(1000, 10, 4, java.util.OptionalLong.empty()),
                now::get, () -> 42L);
        reader.initializeState(InMemoryOperatorContext.fresh(0, 2)); // 500 records/s for this subtask
        List<Row> rows = new ArrayList<>();

        assertThat(reader.pollNext(rows::add)).isEqualTo(PollStatus.MORE_AVAILABLE);
        assertThat(rows).hasSize(1);
        assertThat(reader.pollNext(rows::add)).isEqualTo(PollStatus.NOTHING_AVAILABLE);
        assertThat(reader.idleWaitNanos()).isEqualTo(2_000_000L);

        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(10));
        reader.pollNext(rows::add);
        assertThat(rows).hasSize(6);

        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(500));
        reader.pollNext(rows::add);
        assertThat(rows).hasSize(256);
        assertThat(rows.get(255).get("ts")).isEqualTo(42L);
    }

    @Test
    void rateHoldsOnTheRealClock() throws Exception {
        SourceReader reader = started(new DatagenSourceFactory().create(
                config(Map.of("rate", 2000L, "limit", 300L)), DatagenSettings.SCHEMA), 0, 1);
        long start = System.nanoTime();
        List<Row> rows = drain(reader);
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertThat(rows).hasSize(300);
        // 300 records at 2000/s cannot take less than ~150 ms; generous upper bound for a loaded machine
        assertThat(elapsedMs).isBetween(140L, 10_000L);
    }

    @Test
    void unlimitedRateEmitsAboutOneBufferOfPayloadPerPoll() throws Exception {
        SourceReader reader = started(new DatagenSourceFactory().create(config(Map.of()), DatagenSettings.SCHEMA), 0, 1);
        List<Row> rows = new ArrayList<>();

        assertThat(reader.pollNext(rows::add)).isEqualTo(PollStatus.MORE_AVAILABLE);
        assertThat(rows).hasSize(32 * 1024 / 100);

        SourceReader small = started(new DatagenSourceFactory().create(config(Map.of("record-size", 10L)), DatagenSettings.SCHEMA), 0, 1);
        rows.clear();
        small.pollNext(rows::add);
        assertThat(rows).as("never more than 1024 rows").hasSize(1024);
    }

    @Test
    void restoreContinuesTheSequenceAfterTheSnapshot() throws Exception {
        PluginConfig config = config(Map.of("keys", 5L));
        InMemoryOperatorContext context = InMemoryOperatorContext.fresh(1, 2);
        SourceReader reader = new DatagenSourceFactory().create(config, DatagenSettings.SCHEMA);
        reader.initializeState(context);
        for (int i = 0; i < 3; i++) {
            reader.pollNext(r -> { });
        }
        reader.snapshotState(1);
        reader.pollNext(r -> { }); // lost with the failure
        Map<String, byte[]> checkpoint = context.snapshotOperatorState();

        SourceReader restored = new DatagenSourceFactory().create(config, DatagenSettings.SCHEMA);
        restored.initializeState(InMemoryOperatorContext.restored(1, 2, checkpoint));
        List<Row> rows = new ArrayList<>();
        restored.pollNext(rows::add);

        long perPoll = 32 * 1024 / 100;
        assertThat(rows.get(0).getLong(1)).isEqualTo(3 * perPoll);
        assertThat(rows.get(0).getLong(0)).isEqualTo(3 * perPoll % 5);
    }

    /**
     * The key is counted up from {@code emitted % keys} across polls (327 rows each), wrapping at {@code keys}, from
     * shared boxed values up to {@link DatagenReader#MAX_CACHED_KEYS} keys and freshly boxed beyond; a restored
     * reader starts counting at its restored position.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(longs = {7, DatagenReader.MAX_CACHED_KEYS + 7})
    void keysStaySeqModuloKeysAcrossPollsAndAfterARestore(long keys) throws Exception {
        PluginConfig config = config(Map.of("keys", keys, "limit", keys + 1000));
        InMemoryOperatorContext context = InMemoryOperatorContext.fresh(0, 1);
        SourceReader reader = new DatagenSourceFactory().create(config, DatagenSettings.SCHEMA);
        reader.initializeState(context);
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            reader.pollNext(rows::add);
        }
        reader.snapshotState(1);
        rows.addAll(drain(reader));
        SourceReader restored = new DatagenSourceFactory().create(config, DatagenSettings.SCHEMA);
        restored.initializeState(InMemoryOperatorContext.restored(0, 1, context.snapshotOperatorState()));
        List<Row> afterRestore = drain(restored);

        assertThat(rows).hasSize((int) keys + 1000).allSatisfy(r -> assertThat(r.getLong(0)).isEqualTo(r.getLong(1) % keys));
        assertThat(afterRestore).hasSize((int) keys + 1000 - 3 * 327)
                .allSatisfy(r -> assertThat(r.getLong(0)).isEqualTo(r.getLong(1) % keys));
        assertThat(afterRestore.get(0).getLong(1)).isEqualTo(3 * 327);
    }

    @Test
    void invalidKeysIsAConfigErrorNamingTheField() {
        assertThatThrownBy(() -> new DatagenSourceFactory().outputSchema(config(Map.of("keys", 0L))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("operators[0].config.keys must be >= 1, got 0");
    }

    @Test
    void factoryIsFoundThroughServiceLoaderAsTypeDatagen() {
        assertThat(ServiceLoader.load(SourceFactory.class).stream().map(p -> p.get().type())).containsExactly("datagen");
    }

    private static PluginConfig config(Map<String, Object> values) {
        return new PluginConfig("operators[0].config", values, Path.of("."));
    }

    private static SourceReader started(SourceReader reader, int subtask, int parallelism) throws Exception {
        reader.initializeState(InMemoryOperatorContext.fresh(subtask, parallelism));
        return reader;
    }

    /** Polls to the end of input, parking for the reader's idle wait like the source task does. */
    private static List<Row> drain(SourceReader reader) throws Exception {
        List<Row> rows = new ArrayList<>();
        while (true) {
            PollStatus status = reader.pollNext(rows::add);
            if (status == PollStatus.END_OF_INPUT) {
                return rows;
            }
            if (status == PollStatus.NOTHING_AVAILABLE) {
                LockSupport.parkNanos(reader.idleWaitNanos());
            }
        }
    }
}
