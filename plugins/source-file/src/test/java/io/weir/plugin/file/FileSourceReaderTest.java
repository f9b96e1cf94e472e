package io.weir.plugin.file;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.operator.OperatorContext;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.SourceFactory;
import io.weir.api.source.PollStatus;
import io.weir.api.source.SourceReader;
import io.weir.api.testing.InMemoryOperatorContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicLong;
import java.nio.file.StandardCopyOption;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FileSourceReaderTest {
    private static final Path FLIGHTS = Path.of("../../examples/data/flights-20k.json").toAbsolutePath().normalize();
    private static final Schema FLIGHT_SCHEMA = Schema.builder()
            .field("date", FieldType.STRING).field("delay", FieldType.LONG).field("distance", FieldType.LONG)
            .field("origin", FieldType.STRING).field("destination", FieldType.STRING).build();

    private static List<Row> allFlights;

    @TempDir
    Path tmp;

    @BeforeAll
    static void readAllFlightsOnce() throws Exception {
        allFlights = drain(newReader(flightsConfig(Map.of())), InMemoryOperatorContext.fresh(0, 1), Integer.MAX_VALUE);
    }

    @Test
    void readsEveryFlightWithTypedFieldsInFileOrder() throws Exception {
        String text = Files.readString(FLIGHTS);
        Matcher delays = Pattern.compile("\"delay\":(-?\\d+)").matcher(text);
        long expectedDelaySum = 0;
        int expectedRecords = 0;
        while (delays.find()) {
            expectedDelaySum += Long.parseLong(delays.group(1));
            expectedRecords++;
        }

        assertThat(allFlights).hasSize(20_000).hasSize(expectedRecords);
        assertThat(allFlights.get(0)).isEqualTo(new Row(FLIGHT_SCHEMA, "2001/01/01 00:47", 66L, 1750L, "DTW", "LAS"));
        assertThat(allFlights.get(0).schema()).isEqualTo(FLIGHT_SCHEMA);
        assertThat(allFlights.stream().mapToLong(r -> r.getLong(1)).sum()).isEqualTo(expectedDelaySum);
        assertThat(allFlights.get(19_999).get("destination")).isEqualTo("GSO");
    }

    @Test
    void twoSubtasksSplitTheFileByRecordIndexDisjointlyAndCompletely() throws Exception {
        List<Row> first = drain(newReader(flightsConfig(Map.of())), InMemoryOperatorContext.fresh(0, 2), Integer.MAX_VALUE);
        List<Row> second = drain(newReader(flightsConfig(Map.of())), InMemoryOperatorContext.fresh(1, 2), Integer.MAX_VALUE);

        assertThat(first).hasSize(10_000);
        assertThat(second).hasSize(10_000);
        for (int i = 0; i < allFlights.size(); i++) {
            List<Row> owner = i % 2 == 0 ? first : second;
            assertThat(owner.get(i / 2)).as("record %d", i).isEqualTo(allFlights.get(i));
        }
    }

    @Test
    void restoreFromSnapshottedOffsetContinuesWithExactlyTheRemainingRecords() throws Exception {
        InMemoryOperatorContext context = InMemoryOperatorContext.fresh(1, 2);
        SourceReader reader = newReader(flightsConfig(Map.of()));
        List<Row> beforeCheckpoint = drain(reader, context, 3);
        reader.snapshotState(7);
        Map<String, byte[]> checkpoint = context.snapshotOperatorState();
        poll(reader, 2); // emitted after the checkpoint: lost in the failure, must be replayed
        reader.close();

        SourceReader restored = newReader(flightsConfig(Map.of()));
        List<Row> afterRestore = drain(restored, InMemoryOperatorContext.restored(1, 2, checkpoint), Integer.MAX_VALUE);

        List<Row> expected = new ArrayList<>();
        for (int i = 1; i < allFlights.size(); i += 2) {
            expected.add(allFlights.get(i));
        }
        assertThat(beforeCheckpoint).hasSize(3 * FileSourceReader.MAX_ROWS_PER_POLL);
        List<Row> replayed = new ArrayList<>(beforeCheckpoint);
        replayed.addAll(afterRestore);
        assertThat(replayed).isEqualTo(expected);
    }

    @Test
    void limitCapsTheRecordsReadOverAllSubtasks() throws Exception {
        List<Row> rows = drain(newReader(flightsConfig(Map.of("limit", 1001L))), InMemoryOperatorContext.fresh(0, 2),
                Integer.MAX_VALUE);

        assertThat(rows).hasSize(501).containsExactlyElementsOf(
                java.util.stream.IntStream.range(0, 1001).filter(i -> i % 2 == 0).mapToObj(allFlights::get).toList());
    }

    @Test
    void releaseFileHoldsTheSourceAtItsCountUntilItGrowsOrIsDeleted() throws Exception {
        Path release = write("release", "1001");
        AtomicLong nanos = new AtomicLong();
        PluginConfig config = flightsConfig(Map.of("release-file", release.toString()));
        SourceReader reader = new FileSourceReader(FileSourceSettings.from(config), nanos::get);
        reader.initializeState(InMemoryOperatorContext.fresh(0, 2));
        List<Row> rows = new ArrayList<>();

        assertThat(pollUntilIdle(reader, rows)).isEqualTo(PollStatus.NOTHING_AVAILABLE);
        assertThat(rows).containsExactlyElementsOf(evenFlights(0, 1001));
        assertThat(reader.idleWaitNanos()).isEqualTo(10_000_000L);

        Files.writeString(tmp.resolve("release.tmp"), "3000\n");
        Files.move(tmp.resolve("release.tmp"), release, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertThat(reader.pollNext(rows::add)).as("not read again within 10 ms").isEqualTo(PollStatus.NOTHING_AVAILABLE);
        assertThat(rows).hasSize(501);
        nanos.addAndGet(10_000_000L);
        assertThat(pollUntilIdle(reader, rows)).isEqualTo(PollStatus.NOTHING_AVAILABLE);
        assertThat(rows).containsExactlyElementsOf(evenFlights(0, 3000));

        Files.delete(release);
        nanos.addAndGet(10_000_000L);
        assertThat(pollUntilIdle(reader, rows)).isEqualTo(PollStatus.END_OF_INPUT);
        assertThat(rows).containsExactlyElementsOf(evenFlights(0, 20_000));
    }

    @Test
    void releaseFileThatIsNotACountFailsTheJobNamingTheFileAndItsContent() throws Exception {
        Path release = write("release", "lots");
        SourceReader reader = newReader(flightsConfig(Map.of("release-file", release.toString())));
        reader.initializeState(InMemoryOperatorContext.fresh(0, 1));

        assertThatThrownBy(() -> reader.pollNext(row -> { }))
                .isInstanceOf(io.weir.api.SuppressRestartsException.class)
                .hasMessageContaining(release.toString()).hasMessageContaining("holds 'lots', not a whole number");
    }

    /** Polls until the reader reports it is idle or at its end (at most 1,000 polls); returns that status. */
    private static PollStatus pollUntilIdle(SourceReader reader, List<Row> rows) throws Exception {
        for (int i = 0; i < 1_000; i++) {
            PollStatus status = reader.pollNext(rows::add);
            if (status != PollStatus.MORE_AVAILABLE) {
                return status;
            }
        }
        throw new AssertionError("still MORE_AVAILABLE after 1,000 polls");
    }

    private static List<Row> evenFlights(int from, int to) {
        return java.util.stream.IntStream.range(from, to).filter(i -> i % 2 == 0).mapToObj(allFlights::get).toList();
    }

    @Test
    void valueOfWrongTypeFailsNamingFileRecordNumberFromOneAndField() throws Exception {
        Path file = write("bad.jsonl", """
                {"origin":"A","delay":1}
                {"origin":"B","delay":2}
                {"origin":"C","delay":"abc"}
                """);
        SourceReader reader = newReader(config(file, Map.of("origin", "string", "delay", "long"), Map.of()));

        assertThatThrownBy(() -> drain(reader, InMemoryOperatorContext.fresh(0, 1), Integer.MAX_VALUE))
                .isInstanceOf(io.weir.api.SuppressRestartsException.class).cause().isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("record 3:")
                .hasMessageContaining("field 'delay' expects long but found string \"abc\"")
                .hasMessageContaining("fix or remove that record");
    }

    @Test
    void jsonLinesAndArrayLayoutsGiveTheSameRowsWithEscapesMissingFieldsAndSkippedExtras() throws Exception {
        String a = "{\"name\":\"tab\\there \\\"q\\\" \\u00e9\",\"n\":1,\"x\":{\"deep\":[1,{\"k\":null}]},\"ok\":true}";
        String b = "{\"n\":-2.5e0,\"name\":null}";
        Path lines = write("in.jsonl", a + "\n\n" + b + "\n");
        Path array = write("in.json", " [\n" + a + " ,\n" + b + "]\n");
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("name", "string");
        schema.put("n", "double");
        schema.put("ok", "boolean");

        List<Row> fromLines = drain(newReader(config(lines, schema, Map.of())), InMemoryOperatorContext.fresh(0, 1), 100);
        List<Row> fromArray = drain(newReader(config(array, schema, Map.of("format", "array"))),
                InMemoryOperatorContext.fresh(0, 1), 100);

        Schema expectedSchema = Schema.builder().field("name", FieldType.STRING).field("n", FieldType.DOUBLE)
                .field("ok", FieldType.BOOLEAN).build();
        assertThat(fromLines).containsExactly(
                new Row(expectedSchema, "tab\there \"q\" \u00e9", 1.0, true),
                new Row(expectedSchema, null, -2.5, null));
        assertThat(fromArray).isEqualTo(fromLines);
    }

    @Test
    void configuredLayoutThatDoesNotMatchTheFileFailsTheRead() throws Exception {
        SourceReader reader = newReader(flightsConfig(Map.of("format", "lines")));

        assertThatThrownBy(() -> drain(reader, InMemoryOperatorContext.fresh(0, 1), 1))
                .isInstanceOf(io.weir.api.SuppressRestartsException.class).cause().isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("'lines'").hasMessageContaining("'array'");
    }

    @Test
    void missingInputFileIsAConfigErrorNamingTheField() {
        PluginConfig config = config(tmp.resolve("x/y.json"), Map.of("a", "long"), Map.of());

        assertThatThrownBy(() -> new FileSourceFactory().outputSchema(config))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("operators[0].config.path file " + tmp.resolve("x/y.json") + " does not exist");
    }

    @Test
    void unknownFieldTypeIsAConfigErrorNamingTheSchemaField() throws Exception {
        PluginConfig config = config(write("e.jsonl", ""), Map.of("a", "decimal"), Map.of());

        assertThatThrownBy(() -> new FileSourceFactory().outputSchema(config))
                .hasMessageStartingWith("operators[0].config.schema.a unknown field type 'decimal'");
    }

    @Test
    void factoryIsFoundThroughServiceLoaderAsTypeFile() {
        assertThat(ServiceLoader.load(SourceFactory.class).stream().map(p -> p.get().type()))
                .containsExactly("file");
    }

    private Path write(String name, String content) throws Exception {
        return Files.writeString(tmp.resolve(name), content, StandardCharsets.UTF_8);
    }

    private static PluginConfig flightsConfig(Map<String, Object> extra) {
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("date", "string");
        schema.put("delay", "long");
        schema.put("distance", "long");
        schema.put("origin", "string");
        schema.put("destination", "string");
        return config(FLIGHTS, schema, extra);
    }

    private static PluginConfig config(Path file, Map<String, Object> schema, Map<String, Object> extra) {
        Map<String, Object> values = new LinkedHashMap<>(extra);
        values.put("path", file.getFileName().toString());
        values.put("schema", schema);
        return new PluginConfig("operators[0].config", values, file.getParent());
    }

    private static SourceReader newReader(PluginConfig config) {
        FileSourceFactory factory = new FileSourceFactory();
        return factory.create(config, factory.outputSchema(config));
    }

    /** Initializes the reader with {@code context} and polls up to {@code polls} times or to the end. */
    private static List<Row> drain(SourceReader reader, OperatorContext context, int polls) throws Exception {
        reader.initializeState(context);
        return poll(reader, polls);
    }

    /** Polls an initialized reader up to {@code polls} times or to the end. */
    private static List<Row> poll(SourceReader reader, int polls) throws Exception {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < polls; i++) {
            if (reader.pollNext(rows::add) == PollStatus.END_OF_INPUT) {
                break;
            }
        }
        return rows;
    }
}
