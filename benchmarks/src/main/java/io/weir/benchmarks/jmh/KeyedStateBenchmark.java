package io.weir.benchmarks.jmh;

import io.weir.api.Row;
import io.weir.api.RowSerializer;
import io.weir.api.serialization.Serializers;
import io.weir.api.state.StateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.core.state.KeyGroupAssignment;
import io.weir.core.state.KeyHashVersion;
import io.weir.core.state.KeyedStateBackend;
import io.weir.core.state.KeyedStateBackendParameters;
import io.weir.runtime.io.network.KeySelector;
import io.weir.state.heap.HeapStateBackend;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The heap state backend's {@link ValueState} on the record path of a keyed count: per row, extract
 * the key row ({@link KeySelector#key}, one LONG field), compute its key group with
 * {@link KeyHashVersion#keyGroupFor} ({@link KeyHashVersion#CURRENT}, max parallelism 128), {@link KeyedStateBackend#setCurrentKey},
 * then {@code value()} and {@code update(value + 1)}. Rows are datagen-like ({@link DatagenRows}) in
 * datagen's key order ({@code seq % keys}); every key already has a value (filled in setup), so the
 * measurement sees updates, not inserts. One subtask of parallelism 1 owns all 128 key groups.
 * Score: rows per µs (one operation = one row), single-threaded.
 *
 * <p>State is per benchmark thread ({@link Scope#Thread}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+UseParallelGC"})
@State(Scope.Thread)
public class KeyedStateBenchmark {
    /** Number of key groups: the default of {@code pipeline.max-parallelism} ({@code ExecutionOptions.MAX_PARALLELISM}). */
    private static final int MAX_PARALLELISM = 128;

    /** Distinct keys: 16 (the hot set fits in cache) or 100,000 (as {@code throughput-100k}). */
    @Param({"16", "100000"})
    public int keys;

    /** Benchmark thread only (all fields below). */
    private Row[] rows;
    private KeySelector keySelector;
    private KeyedStateBackend backend;
    private ValueState<Long> count;
    /** Index of the next row in {@link #rows}. */
    private int next;

    /**
     * Creates a fresh heap backend (no restore state) and gives every key a count of 0.
     *
     * @throws Exception if the backend cannot be created (it reads nothing, so only on a bug)
     */
    @Setup
    public void setUp() throws Exception {
        rows = DatagenRows.rows(keys, keys); // one row per key, in datagen's seq % keys order
        keySelector = new KeySelector(DatagenRows.SCHEMA, List.of("key"), KeyHashVersion.CURRENT);
        backend = new HeapStateBackend().createKeyedStateBackend(new KeyedStateBackendParameters(
                "jmh", "keyed-state-benchmark", 0, MAX_PARALLELISM,
                KeyGroupAssignment.rangeForSubtask(MAX_PARALLELISM, 1, 0),
                new RowSerializer(keySelector.keySchema()), List.of()));
        count = backend.getState(new StateDescriptor.Value<>("count", Serializers.LONG));
        for (Row row : rows) {
            Row key = keySelector.key(row);
            backend.setCurrentKey(key, KeyHashVersion.CURRENT.keyGroupFor(key, MAX_PARALLELISM));
            count.update(0L);
        }
        next = 0;
    }

    /**
     * Counts one row for its key.
     *
     * @param bh sinks the value read
     */
    @Benchmark
    public void valueAndUpdate(Blackhole bh) {
        Row row = rows[next];
        next = next + 1 == rows.length ? 0 : next + 1;
        Row key = keySelector.key(row);
        backend.setCurrentKey(key, KeyHashVersion.CURRENT.keyGroupFor(key, MAX_PARALLELISM));
        Long current = count.value();
        bh.consume(current);
        count.update(current + 1);
    }

    /** Releases the backend's maps. */
    @TearDown
    public void tearDown() {
        backend.close();
    }
}
