package io.weir.benchmarks.jmh;

import io.weir.api.Row;
import io.weir.api.RowSerializer;
import io.weir.runtime.io.network.ByteArrayDataInput;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * {@link RowSerializer} on one datagen-like row ({@link DatagenRows}: key, seq, ts and a 100-byte
 * payload; 129 bytes serialized): {@link #serialize} through a reusable {@link ByteArrayDataOutput},
 * {@link #serializeInto} straight into a byte array as {@code RecordWriter} does, {@link #deserialize} from a
 * reusable {@link ByteArrayDataInput} (the {@code DataInput} path state backends use) and {@link #deserializeArray}
 * straight from the byte array as {@code RecordDeserializer} does.
 * Score: rows per µs (one operation = one row), single-threaded.
 *
 * <p>State is per benchmark thread ({@link Scope#Thread}); JMH runs each benchmark on one thread.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+UseParallelGC"})
@State(Scope.Thread)
public class RowSerializationBenchmark {
    /** Benchmark thread only. */
    private RowSerializer serializer;
    /** The row {@link #serialize} writes. Benchmark thread only. */
    private Row row;
    /** Reused per row by {@link #serialize}. Benchmark thread only. */
    private ByteArrayDataOutput out;
    /** What {@link #serializeInto} writes into, as a network buffer's segment. Benchmark thread only. */
    private byte[] segment = new byte[32 * 1024];
    /** Reused per row by {@link #deserialize}. Benchmark thread only. */
    private ByteArrayDataInput in;
    /** The serialized form of {@link #row}, which {@link #deserialize} reads. Benchmark thread only. */
    private byte[] serialized;

    /**
     * Builds the row and its serialized form (also sizes the output buffer, so no run grows it).
     *
     * @throws IOException never in practice (the output is in memory)
     */
    @Setup
    public void setUp() throws IOException {
        serializer = new RowSerializer(DatagenRows.SCHEMA);
        row = DatagenRows.rows(8, 16)[7];
        out = new ByteArrayDataOutput();
        in = new ByteArrayDataInput();
        serializer.serialize(row, out);
        serialized = java.util.Arrays.copyOf(out.array(), out.length());
    }

    /**
     * Serializes one row into the cleared, reused output.
     *
     * @param bh sinks the serialized length so the work is not eliminated
     * @throws IOException never in practice
     */
    @Benchmark
    public void serialize(Blackhole bh) throws IOException {
        out.clear();
        serializer.serialize(row, out);
        bh.consume(out.length());
        bh.consume(out.array());
    }

    /**
     * Serializes one row straight into a byte array ({@link RowSerializer#serializeInto}), the record path's way.
     *
     * @param bh sinks the end position so the work is not eliminated
     */
    @Benchmark
    public void serializeInto(Blackhole bh) {
        bh.consume(serializer.serializeInto(row, segment, 4, segment.length));
        bh.consume(segment);
    }

    /**
     * Deserializes one row from the reused input (allocates the row, its values and its payload copy,
     * as on the record path).
     *
     * @param bh sinks the row
     * @throws IOException never in practice (the bytes were written by the same serializer)
     */
    @Benchmark
    public void deserialize(Blackhole bh) throws IOException {
        in.reset(serialized, 0, serialized.length);
        bh.consume(serializer.deserialize(in));
    }

    /**
     * Deserializes one row straight from the byte array ({@link RowSerializer#deserialize(byte[], int, int)}), the
     * record path's way (allocates the row, its values and its payload copy).
     *
     * @param bh sinks the row
     * @throws IOException never in practice (the bytes were written by the same serializer)
     */
    @Benchmark
    public void deserializeArray(Blackhole bh) throws IOException {
        bh.consume(serializer.deserialize(serialized, 0, serialized.length));
    }
}
