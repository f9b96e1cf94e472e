package io.weir.plugin.file;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.benchmarks.source.FlightLines;
import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonParser;
import jakarta.json.stream.JsonParserFactory;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

/**
 * The file source's hand-written tokenizer ({@link JsonRecordReader}) against Parsson's streaming
 * parser (the JSON-P implementation the engine ships) on {@value #RECORDS} flight records, both
 * producing the same {@link Row}s of the same schema from bytes in memory. Score: records per µs
 * (one invocation reads all records), single-threaded.
 *
 * <ul>
 *   <li>{@code handwrittenLines} / {@code handwrittenArray}: {@link JsonRecordReader} on the JSON-lines
 *       and the JSON-array form of the data.</li>
 *   <li>{@code parssonArray}: one Parsson parser over the array form, events mapped to rows: the
 *       best case for Parsson.</li>
 *   <li>{@code parssonLines}: one Parsson parser per line, since JSON-P parses one top-level value
 *       per parser: what replacing the tokenizer would cost for JSON lines.</li>
 * </ul>
 *
 * <p>Data: the first {@value #RECORDS} lines of {@code file} (JSON lines, {@code .gz} is
 * decompressed), e.g. {@code -p file=/work/shared/data/flights-3m.jsonl.gz}; by default generated
 * flight-like records ({@link FlightLines}). In package {@code io.weir.plugin.file} because the
 * tokenizer is package-private to the plugin.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+UseParallelGC"})
@State(Scope.Thread)
public class JsonRecordReaderBenchmark {
    /** Records per invocation. */
    public static final int RECORDS = 100_000;
    private static final Path NAME = Path.of("flights.jsonl");
    private static final Schema SCHEMA = Schema.builder()
            .field("date", FieldType.STRING).field("delay", FieldType.LONG).field("distance", FieldType.LONG)
            .field("origin", FieldType.STRING).field("destination", FieldType.STRING).build();

    /** JSON-lines input file; empty: generated records. */
    @Param("")
    public String file;

    /** Benchmark thread only. */
    private byte[] lines;
    private byte[] array;
    private JsonParserFactory parsers;

    /**
     * Loads or generates the data in both layouts and checks that both parsers read the same rows.
     *
     * @throws IOException if {@code file} cannot be read or holds fewer than {@value #RECORDS} lines
     * @throws IllegalStateException if the parsers disagree on the data
     */
    @Setup
    public void setUp() throws IOException {
        ByteArrayOutputStream l = new ByteArrayOutputStream();
        ByteArrayOutputStream a = new ByteArrayOutputStream();
        a.write('[');
        if (file.isEmpty()) {
            FlightLines flights = new FlightLines();
            for (int i = 0; i < RECORDS; i++) {
                append(l, a, flights.record(i), i);
            }
        } else {
            try (InputStream raw = Files.newInputStream(Path.of(file));
                 InputStream in = file.endsWith(".gz") ? new GZIPInputStream(raw) : raw;
                 BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (int i = 0; i < RECORDS; i++) {
                    String line = r.readLine();
                    if (line == null) {
                        throw new IOException(file + " has only " + i + " lines, the benchmark needs " + RECORDS);
                    }
                    append(l, a, line, i);
                }
            }
        }
        a.write(']');
        lines = l.toByteArray();
        array = a.toByteArray();
        parsers = JsonProvider.provider().createParserFactory(Map.of());
        Blackhole check = new Blackhole("Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");
        long a1 = handwritten(lines, check);
        long a2 = parssonArray(check);
        long a3 = parssonLines(check);
        if (a1 != RECORDS || a2 != RECORDS || a3 != RECORDS) {
            throw new IllegalStateException("record counts differ: " + a1 + ", " + a2 + ", " + a3);
        }
        try (JsonRecordReader reader = reader(lines); JsonParser p = parsers.createParser(new ByteArrayInputStream(array))) {
            p.next();
            for (int i = 0; i < RECORDS; i++) {
                Row mine = reader.next();
                Row theirs = parssonRow(p, p.next());
                if (!mine.equals(theirs)) {
                    throw new IllegalStateException("record " + (i + 1) + ": " + mine + " vs " + theirs);
                }
            }
        }
        check.evaporate("Yes, I am Stephen Hawking, and know a thing or two about black holes.");
    }

    private static void append(ByteArrayOutputStream lines, ByteArrayOutputStream array, String record, int i) {
        byte[] bytes = record.getBytes(StandardCharsets.UTF_8);
        lines.writeBytes(bytes);
        lines.write('\n');
        if (i > 0) {
            array.write(',');
        }
        array.writeBytes(bytes);
    }

    /** @return records read */
    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public long handwrittenLines(Blackhole bh) throws IOException {
        return handwritten(lines, bh);
    }

    /** @return records read */
    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public long handwrittenArray(Blackhole bh) throws IOException {
        return handwritten(array, bh);
    }

    /** @return records read */
    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public long parssonArray(Blackhole bh) {
        long n = 0;
        try (JsonParser p = parsers.createParser(new ByteArrayInputStream(array))) {
            p.next(); // START_ARRAY
            for (JsonParser.Event e = p.next(); e != JsonParser.Event.END_ARRAY; e = p.next()) {
                bh.consume(parssonRow(p, e));
                n++;
            }
        }
        return n;
    }

    /** @return records read */
    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public long parssonLines(Blackhole bh) {
        long n = 0;
        int start = 0;
        while (start < lines.length) {
            int end = start;
            while (lines[end] != '\n') {
                end++;
            }
            try (JsonParser p = parsers.createParser(new ByteArrayInputStream(lines, start, end - start))) {
                bh.consume(parssonRow(p, p.next()));
            }
            n++;
            start = end + 1;
        }
        return n;
    }

    private long handwritten(byte[] data, Blackhole bh) throws IOException {
        long n = 0;
        try (JsonRecordReader reader = reader(data)) {
            for (Row row = reader.next(); row != null; row = reader.next()) {
                bh.consume(row);
                n++;
            }
        }
        return n;
    }

    private static JsonRecordReader reader(byte[] data) {
        return new JsonRecordReader(Channels.newChannel(new ByteArrayInputStream(data)), NAME, SCHEMA, JsonFormat.AUTO,
                FilePosition.START);
    }

    /** Maps one object's events to a row as JsonRecordReader does (values of the schema's types, other fields skipped). */
    private static Row parssonRow(JsonParser p, JsonParser.Event start) {
        if (start != JsonParser.Event.START_OBJECT) {
            throw new IllegalStateException("expected an object, found " + start);
        }
        Object[] values = new Object[SCHEMA.size()];
        for (JsonParser.Event e = p.next(); e != JsonParser.Event.END_OBJECT; e = p.next()) {
            int index = SCHEMA.indexOf(p.getString());
            JsonParser.Event v = p.next();
            if (index < 0) {
                if (v == JsonParser.Event.START_OBJECT) {
                    p.skipObject();
                } else if (v == JsonParser.Event.START_ARRAY) {
                    p.skipArray();
                }
                continue;
            }
            FieldType type = SCHEMA.field(index).type();
            values[index] = switch (v) {
                case VALUE_STRING -> type == FieldType.STRING ? p.getString() : fail(type, v);
                case VALUE_NUMBER -> type == FieldType.LONG && p.isIntegralNumber() ? p.getLong() : fail(type, v);
                case VALUE_NULL -> null;
                default -> fail(type, v);
            };
        }
        return new Row(SCHEMA, values);
    }

    private static Object fail(FieldType type, JsonParser.Event found) {
        throw new IllegalStateException("expected " + type + ", found " + found);
    }
}
