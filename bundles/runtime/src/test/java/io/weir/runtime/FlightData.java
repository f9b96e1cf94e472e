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

    /** Per origin: [count, sum of delay]. */
    static Map<String, long[]> groundTruth() throws IOException {
        Map<String, long[]> truth = new TreeMap<>();
        try (Reader r = Files.newBufferedReader(DATA); JsonReader jr = Json.createReader(r)) {
            JsonArray all = jr.readArray();
            for (JsonValue v : all) {
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

    private FlightData() {
    }
}
