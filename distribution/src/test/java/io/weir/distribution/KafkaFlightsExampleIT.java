package io.weir.distribution;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code examples/kafka-flights.sh} as a user runs it, against this build's distribution: it starts its own Kafka
 * broker and PostgreSQL server, loads the 20,000 flights of {@code examples/data/flights-20k.json}, runs
 * {@code examples/kafka-flights.json} with {@code bin/weir run} and prints what is committed. One update per flight
 * reaches the topic exactly once, and the table holds one row per origin with its true flight count (computed here
 * from the data file). The script stops both servers itself; the test kills what is left if it times out.
 */
class KafkaFlightsExampleIT {
    private static final Path HOME = Path.of(System.getProperty("weir.home", "target/weir")).toAbsolutePath();
    private static final Path EXAMPLES = Path.of("..", "examples").toAbsolutePath().normalize();

    @TempDir
    Path work;

    @Test
    void theExampleScriptCommitsEveryFlightOnceToKafkaAndPostgres() throws Exception {
        Map<String, Long> perOrigin = new TreeMap<>();
        String data = Files.readString(EXAMPLES.resolve("data/flights-20k.json"), StandardCharsets.UTF_8);
        JsonArray flights = JsonProvider.provider().createReader(new StringReader(data)).readArray();
        for (JsonValue v : flights) {
            perOrigin.merge(((JsonObject) v).getString("origin"), 1L, Long::sum);
        }
        Path out = work.resolve("stdout.txt");
        Path err = work.resolve("stderr.txt");
        ProcessBuilder pb = new ProcessBuilder("bash", EXAMPLES.resolve("kafka-flights.sh").toString())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put("WEIR", HOME.resolve("bin/weir").toString());
        // the script's directory goes here; run as root, the server runs as user postgres, which must reach it
        Files.setPosixFilePermissions(work, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        pb.environment().put("TMPDIR", work.toString());
        Process p = pb.start();
        try {
            assertThat(p.waitFor(6, TimeUnit.MINUTES)).as("the example finished within 6 min").isTrue();
        } finally {
            if (p.isAlive()) {
                WeirProcesses.killWithDescendants(p);
            }
        }
        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as("%s", WeirProcesses.describe(p, out, err)).isZero();
        assertThat(stdout).contains("loaded " + flights.size() + " flights into topic flights")
                .contains(flights.size() + " committed updates in topic per-origin (read_committed)")
                .contains(perOrigin.size() + " origins, " + flights.size() + " flights in table delays");
        Map.Entry<String, Long> busiest = perOrigin.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow();
        assertThat(stdout).containsPattern("(?m)^\\s*" + busiest.getKey() + "\\s*\\|\\s*" + busiest.getValue() + "\\s*\\|");
        try (var dirs = Files.list(work)) {
            assertThat(dirs.filter(d -> d.getFileName().toString().startsWith("weir-kafka-flights-")).toList())
                    .as("the script removed its servers' directory").isEmpty();
        }
    }
}
