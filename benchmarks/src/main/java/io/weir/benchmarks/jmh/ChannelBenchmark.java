package io.weir.benchmarks.jmh;

import io.weir.api.Row;
import io.weir.api.RowSerializer;
import io.weir.runtime.io.network.BufferPool;
import io.weir.runtime.io.network.ChannelSelector;
import io.weir.runtime.io.network.InputGate;
import io.weir.runtime.io.network.NetworkBuffer;
import io.weir.runtime.io.network.PipelinedSubpartition;
import io.weir.runtime.io.network.RecordDeserializer;
import io.weir.runtime.io.network.RecordWriter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One network channel on one thread: {@link RecordWriter} serializes datagen-like rows
 * ({@link DatagenRows}, 133 bytes each with the length prefix) into 32 KB buffers of a
 * {@link BufferPool} and hands them to a {@link PipelinedSubpartition} (2 credits); an
 * {@link InputGate} polls them and a {@link RecordDeserializer} reads the rows back and recycles the
 * buffers. Wiring as in {@code PipelinedSubpartitionTest.rowsRoundTripThroughWriterGateAndDeserializerInOrder};
 * sizes are the runtime defaults ({@code ExecutionOptions}: segment size 32 KB, 2 buffers per channel,
 * 8 floating, so a pool of 1 × (2 + 1) + 8 = 11 buffers as {@code JobMaster} sizes it).
 *
 * <p>The producer writes until the pool is exhausted (backpressure), then the consumer drains
 * everything, as a task pair does when the consumer keeps up. Each invocation moves
 * {@value #ROWS_PER_INVOCATION} rows and ends with a flush, so one partly filled buffer per invocation.
 * Score: rows per µs (one operation = one row written and read).
 *
 * <p>State is per benchmark thread ({@link Scope#Thread}); producer and consumer run on that one
 * thread, so the score excludes thread hand-off and wake-ups.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+UseParallelGC"})
@State(Scope.Thread)
public class ChannelBenchmark {
    /** Rows written and read per invocation of {@link #writeAndRead}. */
    public static final int ROWS_PER_INVOCATION = 10_000;

    private static final int BUFFER_SIZE_BYTES = 32 * 1024;
    private static final int CREDITS = 2;
    private static final int FLOATING_BUFFERS = 8;

    /** Benchmark thread only (all fields below). */
    private Row[] rows;
    private RowSerializer serializer;
    private BufferPool pool;
    private RecordWriter writer;
    private InputGate gate;
    private RecordDeserializer deserializer;
    /** Rows read back since setup, to check that none was lost. */
    private long rowsRead;
    /** Invocations since setup. */
    private long invocations;

    /** Wires writer, subpartition, gate and deserializer, and makes the rows (16 keys). */
    @Setup
    public void setUp() {
        rows = DatagenRows.rows(ROWS_PER_INVOCATION, 16);
        serializer = new RowSerializer(DatagenRows.SCHEMA);
        pool = new BufferPool(BUFFER_SIZE_BYTES, CREDITS + 1 + FLOATING_BUFFERS);
        PipelinedSubpartition subpartition = new PipelinedSubpartition(CREDITS);
        gate = new InputGate(List.of(subpartition));
        writer = new RecordWriter(List.of(subpartition), pool, ChannelSelector.forward(), serializer);
        deserializer = new RecordDeserializer();
    }

    /**
     * Writes {@value #ROWS_PER_INVOCATION} rows, draining the gate whenever the pool is exhausted,
     * then flushes and drains the rest.
     *
     * @param bh sinks every row read
     * @throws IOException if a buffer does not hold rows of the schema (a wiring bug)
     */
    @Benchmark
    @OperationsPerInvocation(ROWS_PER_INVOCATION)
    public void writeAndRead(Blackhole bh) throws IOException {
        for (Row row : rows) {
            if (!writer.isAvailable()) {
                drain(bh);
            }
            writer.emit(row);
        }
        writer.flushAll();
        drain(bh);
        invocations++;
    }

    private void drain(Blackhole bh) throws IOException {
        InputGate.ChannelEntry e;
        while ((e = gate.pollNext()) != null) {
            deserializer.setBuffer((NetworkBuffer) e.entry(), e.channel());
            while (deserializer.hasBuffer()) {
                bh.consume(deserializer.next(serializer));
                rowsRead++;
            }
        }
    }

    /**
     * Checks that every row written was read and every buffer came back, so a score never comes from
     * a channel that silently dropped data.
     *
     * @throws IllegalStateException naming the counts if rows were lost or buffers leaked
     */
    @TearDown
    public void checkNothingLost() {
        long expected = invocations * ROWS_PER_INVOCATION;
        if (rowsRead != expected || pool.inUse() != 0) {
            throw new IllegalStateException("channel benchmark read " + rowsRead + " rows of " + expected
                    + " written; " + pool.inUse() + " buffers not recycled");
        }
    }
}
