package io.weir.runtime;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Ground truth for the flight-delays job, computed here independently of the engine: per origin,
 * the number of flights and their mean delay, read straight from the data file.
 */
final class FlightData {
    static final Path DATA = Path.of("../../examples/data/flights-20k.json").toAbsolutePath().normalize();

    /**
     * The flight-delays job: file source → hash by origin → count and average delay → 2PC file sink.
     *
     * @param limit records to read (0 = all)
     * @param sleepMsPerRecord pause of the aggregate per record (backpressure), 0 = none
     */
    static String job(Path checkpoints, int sourceParallelism, long limit, long sleepMsPerRecord, Path out) {
        return """
                {"name": "flight-delays",
                 "config": {"execution.checkpointing.dir": "%s"},
                 "operators": [
                   {"id": "flights", "type": "file", "parallelism": %d, "config": {"path": "%s", %s
                     "schema": {"date": "string", "delay": "long", "distance": "long", "origin": "string", "destination": "string"}}},
                   {"id": "per-origin", "type": "keyed-aggregate", "parallelism": 2,
                    "inputs": [{"from": "flights", "partitioning": "hash", "keys": ["origin"]}],
                    "config": {"key": ["origin"], "sleep-ms-per-record": %d,
                               "aggregates": [{"fn": "count", "as": "flights"}, {"fn": "avg", "field": "delay", "as": "avg_delay"}]}},
                   {"id": "out", "type": "file-2pc", "parallelism": 2, "inputs": ["per-origin"], "config": {"path": "%s"}}
                 ]}
                """.formatted(checkpoints, sourceParallelism, DATA, limit > 0 ? "\"limit\": " + limit + "," : "", sleepMsPerRecord, out);
    }

    /** Per origin: [count, sum of delay], over the first {@code limit} flights of the file. */
    static Map<String, long[]> groundTruth(int limit) throws IOException {
        Map<String, long[]> truth = new TreeMap<>();
        try (Reader r = Files.newBufferedReader(DATA); JsonReader jr = Json.createReader(r)) {
            JsonArray all = jr.readArray();
            for (JsonValue v : all.subList(0, Math.min(limit, all.size()))) {
                JsonObject o = v.asJsonObject();
                long[] acc = truth.computeIfAbsent(o.getString("origin"), k -> new long[2]);
                acc[0]++;
                acc[1] += o.getJsonNumber("delay").longValue();
            }
        }
        return truth;
    }

    /** Every committed row of the sink's output directory, as JSON objects. */
    static List<JsonObject> committedRows(Path dir) throws IOException {
        List<JsonObject> rows = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "part-*")) {
            for (Path f : files) {
                for (String line : Files.readAllLines(f)) {
                    if (!line.isBlank()) {
                        try (JsonReader jr = Json.createReader(new StringReader(line))) {
                            rows.add(jr.readObject());
                        }
                    }
                }
            }
        }
        return rows;
    }

    /** @return origin → list of the counts emitted for it, in file order */
    static Map<String, List<Long>> countsByOrigin(List<JsonObject> rows) {
        Map<String, List<Long>> counts = new HashMap<>();
        for (JsonObject o : rows) {
            counts.computeIfAbsent(o.getString("origin"), k -> new ArrayList<>()).add(o.getJsonNumber("flights").longValue());
        }
        return counts;
    }

    /**
     * The committed output is exactly-once: for every origin each count 1..N exactly once, and the
     * row with count N carries the true mean delay; no in-progress files are left.
     */
    static void assertExactlyOnce(Path output, Map<String, long[]> truth) throws IOException {
        List<JsonObject> rows = committedRows(output);
        org.assertj.core.api.Assertions.assertThat(rows).hasSize(truth.values().stream().mapToInt(a -> (int) a[0]).sum());
        Map<String, List<Long>> counts = countsByOrigin(rows);
        org.assertj.core.api.Assertions.assertThat(counts.keySet()).isEqualTo(truth.keySet());
        Map<String, Double> lastAvg = new HashMap<>();
        for (JsonObject o : rows) {
            long n = truth.get(o.getString("origin"))[0];
            if (o.getJsonNumber("flights").longValue() == n) {
                lastAvg.put(o.getString("origin"), o.getJsonNumber("avg_delay").doubleValue());
            }
        }
        for (Map.Entry<String, long[]> e : truth.entrySet()) {
            List<Long> got = new ArrayList<>(counts.get(e.getKey()));
            java.util.Collections.sort(got);
            org.assertj.core.api.Assertions.assertThat(got).as("counts of origin %s", e.getKey())
                    .isEqualTo(java.util.stream.LongStream.rangeClosed(1, e.getValue()[0]).boxed().toList());
            org.assertj.core.api.Assertions.assertThat(lastAvg.get(e.getKey())).as("final average delay of %s", e.getKey())
                    .isCloseTo((double) e.getValue()[1] / e.getValue()[0], org.assertj.core.api.Assertions.within(1e-9));
        }
        try (java.util.stream.Stream<Path> files = Files.list(output)) {
            org.assertj.core.api.Assertions.assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".inprogress"));
        }
    }

    private FlightData() {
    }
}
