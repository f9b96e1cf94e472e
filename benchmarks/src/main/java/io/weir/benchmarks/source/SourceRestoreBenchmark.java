package io.weir.benchmarks.source;

import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.SourceFactory;
import io.weir.api.source.PollStatus;
import io.weir.api.source.SourceReader;
import io.weir.benchmarks.JsonLines;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.spi.JsonProvider;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;

/**
 * How long the {@code file} source takes to restore at several positions of a large JSON-lines
 * file: the time from creating the reader with a checkpoint's state to the first rows after the
 * checkpoint (one {@code pollNext}), which is what a job waits for before it advances again.
 *
 * <p>One fresh pass (parallelism 1) reads the file and snapshots the source's operator state at each
 * position (the first poll boundary at or after it: polls emit up to 256 rows); then each round
 * restores from every snapshot in turn. Each restore is checked: its first row must equal the row
 * the fresh pass read at that index, else the run fails. The input is generated ({@link FlightLines}) into a temporary file unless {@code --file} names one; a page-cached file
 * is what is measured (the CPU cost of reaching the position, not the disk).
 *
 * <p>Output on stdout, one JSON object per line: a {@code restore} line per restore
 * ({@code position}, {@code round}, {@code restore_ms}), then a {@code summary} line per position
 * (median, min, max over the rounds) and the 1-minute load average. Exit status 0 on success, 1
 * when a restore read the wrong records, 2 on a usage error. Main thread only.
 */
@Command(name = "source-restore-benchmark", mixinStandardHelpOptions = true,
        description = "Measures the file source's restore time at several positions; JSON lines on stdout.")
public final class SourceRestoreBenchmark implements Callable<Integer> {
    @Option(names = "--file", paramLabel = "PATH",
            description = "JSON-lines input with fields date, delay, distance, origin, destination (default: generated)")
    private Path file;

    @Option(names = "--records", paramLabel = "N", defaultValue = "6300000",
            description = "Records to generate when --file is absent (default: ${DEFAULT-VALUE})")
    private long records;

    @Option(names = "--positions", paramLabel = "N,N,...", split = ",", defaultValue = "200000,2000000,6000000",
            description = "Record counts read before each checkpoint (default: ${DEFAULT-VALUE})")
    private long[] positions;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "5", description = "Restores per position (default: ${DEFAULT-VALUE})")
    private int rounds;

    private final PrintStream stdout;

    /** @param stdout where the JSON lines go */
    public SourceRestoreBenchmark(PrintStream stdout) {
        this.stdout = stdout;
    }

    /** Runs the command line; exits the JVM with the status described on the class. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new SourceRestoreBenchmark(System.out)).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (rounds < 1 || positions.length == 0 || Arrays.stream(positions).anyMatch(p -> p < 0)) {
            throw new IllegalArgumentException("--rounds must be >= 1 and --positions non-negative, got "
                    + rounds + " and " + Arrays.toString(positions));
        }
        long[] sorted = positions.clone();
        Arrays.sort(sorted);
        Path input = file;
        Path generated = null;
        if (input == null) {
            if (records <= sorted[sorted.length - 1]) {
                throw new IllegalArgumentException("--records " + records + " must exceed the largest position "
                        + sorted[sorted.length - 1]);
            }
            generated = Files.createTempFile("weir-source-restore-", ".jsonl");
            input = generated;
            generate(input, records);
        }
        try {
            return run(input.toAbsolutePath(), sorted);
        } finally {
            if (generated != null) {
                Files.deleteIfExists(generated);
            }
        }
    }

    private int run(Path input, long[] sorted) throws Exception {
        JsonProvider json = JsonProvider.provider();
        JsonLines out = new JsonLines(json, stdout);
        SourceFactory factory = ServiceLoader.load(SourceFactory.class).stream().map(ServiceLoader.Provider::get)
                .filter(f -> f.type().equals("file")).findFirst()
                .orElseThrow(() -> new IllegalStateException("no 'file' source factory on the class path"));
        PluginConfig config = config(input);
        Schema schema = factory.outputSchema(config);

        // the fresh pass: snapshot at each position, remember the row that must come first after restoring there
        List<Map<String, byte[]>> snapshots = new ArrayList<>();
        List<Row> firstAfter = new ArrayList<>();
        long[] actual = new long[sorted.length];
        SourceReader fresh = factory.create(config, schema);
        MapOperatorContext freshContext = new MapOperatorContext(Map.of());
        fresh.initializeState(freshContext);
        List<Row> batch = new ArrayList<>();
        long read = 0;
        int next = 0;
        while (next < sorted.length) {
            while (next < sorted.length && read >= sorted[next]) {
                fresh.snapshotState(next + 1);
                snapshots.add(freshContext.snapshot());
                actual[next] = read;
                next++;
            }
            batch.clear();
            if (fresh.pollNext(batch::add) == PollStatus.END_OF_INPUT && batch.isEmpty() && next < sorted.length) {
                throw new IllegalArgumentException("the input has only " + read + " records, fewer than position "
                        + sorted[next]);
            }
            if (firstAfter.size() < snapshots.size() && !batch.isEmpty()) {
                firstAfter.add(batch.get(0));
            }
            read += batch.size();
        }
        fresh.close();

        double[][] ms = new double[sorted.length][rounds];
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < sorted.length; i++) {
                long start = System.nanoTime();
                SourceReader restored = factory.create(config, schema);
                restored.initializeState(new MapOperatorContext(snapshots.get(i)));
                batch.clear();
                restored.pollNext(batch::add);
                long elapsedNs = System.nanoTime() - start;
                restored.close();
                if (batch.isEmpty() || !batch.get(0).equals(firstAfter.get(i))) {
                    System.err.println("restore at " + actual[i] + " read " + (batch.isEmpty() ? "nothing" : batch.get(0))
                            + " first, expected " + firstAfter.get(i));
                    return 1;
                }
                ms[i][round] = elapsedNs / 1e6;
                out.write(json.createObjectBuilder().add("type", "restore").add("position", actual[i])
                        .add("round", round + 1).add("restore_ms", elapsedNs / 1e6).build());
            }
        }
        for (int i = 0; i < sorted.length; i++) {
            double[] values = Arrays.stream(ms[i]).sorted().toArray();
            int n = values.length;
            double median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
            JsonObjectBuilder summary = json.createObjectBuilder().add("type", "summary").add("position", actual[i])
                    .add("rounds", n).add("median_restore_ms", median).add("min_restore_ms", values[0])
                    .add("max_restore_ms", values[n - 1])
                    .add("input_bytes", Files.size(input))
                    .add("load_average_1m", Math.round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage() * 100) / 100.0);
            out.write(summary.build());
        }
        return 0;
    }

    private static PluginConfig config(Path input) {
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("date", "string");
        schema.put("delay", "long");
        schema.put("distance", "long");
        schema.put("origin", "string");
        schema.put("destination", "string");
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("path", input.toString());
        values.put("schema", schema);
        values.put("format", "lines");
        return new PluginConfig("operators[0].config", values, input.getParent());
    }

    /** Writes {@code n} flight-like JSON lines ({@link FlightLines}). */
    static void generate(Path target, long n) throws IOException {
        FlightLines flights = new FlightLines();
        try (BufferedWriter w = Files.newBufferedWriter(target, StandardCharsets.UTF_8)) {
            for (long i = 0; i < n; i++) {
                w.write(flights.record(i));
                w.newLine();
            }
        }
    }
}
