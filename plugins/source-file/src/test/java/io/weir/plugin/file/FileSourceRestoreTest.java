package io.weir.plugin.file;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.serialization.Serializers;
import io.weir.api.serialization.TypeSerializer;
import io.weir.api.source.PollStatus;
import io.weir.api.source.SourceReader;
import io.weir.api.testing.InMemoryOperatorContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Restoring the file source from a checkpointed {@link FilePosition}: seek, not re-read. */
class FileSourceRestoreTest {
    private static final Schema SCHEMA = Schema.builder()
            .field("id", FieldType.LONG).field("name", FieldType.STRING).field("value", FieldType.DOUBLE).build();
    /** Multi-byte UTF-8 in every other name, so byte offsets and character offsets differ. */
    private static final String[] NAMES = {"plain", "caf\u00e9", "\u65e5\u672c\u8a9e", "emoji \ud83d\ude00", "tab\there"};
    private static final int RECORDS = 10_000;

    @TempDir
    Path tmp;

    /** The records the test writes, in file order: the ground truth. */
    private static List<Row> expectedRecords() {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            rows.add(new Row(SCHEMA, (long) i, NAMES[i % NAMES.length] + " " + i, i * 0.5));
        }
        return rows;
    }

    private Path writeRecords(String layout) throws IOException {
        StringBuilder text = new StringBuilder(layout.equals("array") ? "[\n" : "");
        List<Row> rows = expectedRecords();
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            String name = ((String) r.get("name")).replace("\t", "\\t");
            text.append("{\"id\":").append(i).append(",\"name\":\"").append(name).append("\",\"value\":")
                    .append(i * 0.5).append('}');
            text.append(layout.equals("array") ? (i + 1 < rows.size() ? ",\n" : "\n]\n") : "\n");
        }
        return Files.writeString(tmp.resolve("in." + layout), text, StandardCharsets.UTF_8);
    }

    @ParameterizedTest(name = "{0}, subtask {1} of {2}, checkpoint after {3} polls")
    @CsvSource({"lines,0,1,7", "array,0,1,7", "lines,1,3,5", "array,2,3,5", "lines,0,1,0", "array,0,2,1"})
    void restoreContinuesWithExactlyTheRecordsAfterTheCheckpoint(String layout, int subtask, int parallelism,
            int pollsBeforeCheckpoint) throws Exception {
        Path file = writeRecords(layout);
        InMemoryOperatorContext context = InMemoryOperatorContext.fresh(subtask, parallelism);
        SourceReader reader = newReader(file);
        reader.initializeState(context);
        List<Row> beforeCheckpoint = poll(reader, pollsBeforeCheckpoint);
        reader.snapshotState(1);
        Map<String, byte[]> checkpoint = context.snapshotOperatorState();
        poll(reader, 3); // emitted after the checkpoint: lost in the failure, must be replayed
        reader.close();

        SourceReader restored = newReader(file);
        restored.initializeState(InMemoryOperatorContext.restored(subtask, parallelism, checkpoint));
        List<Row> afterRestore = poll(restored, Integer.MAX_VALUE);

        List<Row> expected = new ArrayList<>();
        List<Row> all = expectedRecords();
        for (int i = subtask; i < all.size(); i += parallelism) {
            expected.add(all.get(i));
        }
        assertThat(beforeCheckpoint).hasSize(pollsBeforeCheckpoint * FileSourceReader.MAX_ROWS_PER_POLL);
        List<Row> replayed = new ArrayList<>(beforeCheckpoint);
        replayed.addAll(afterRestore);
        assertThat(replayed).isEqualTo(expected);
    }

    @Test
    void restoreDoesNotReadTheRecordsBeforeTheCheckpoint() throws Exception {
        Path file = writeRecords("lines");
        InMemoryOperatorContext context = InMemoryOperatorContext.fresh(0, 1);
        SourceReader reader = newReader(file);
        reader.initializeState(context);
        List<Row> beforeCheckpoint = poll(reader, 4);
        reader.snapshotState(1);
        reader.close();
        // break the first record in place (same length): a restore that re-reads the prefix fails on it
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(1);
            raf.write("XXXX".getBytes(StandardCharsets.US_ASCII));
        }

        SourceReader restored = newReader(file);
        restored.initializeState(InMemoryOperatorContext.restored(0, 1, context.snapshotOperatorState()));
        List<Row> afterRestore = poll(restored, Integer.MAX_VALUE);

        assertThat(afterRestore).hasSize(RECORDS - beforeCheckpoint.size())
                .isEqualTo(expectedRecords().subList(beforeCheckpoint.size(), RECORDS));
    }

    @Test
    void restoreAfterTheEndEmitsNothing() throws Exception {
        Path file = writeRecords("array");
        InMemoryOperatorContext context = InMemoryOperatorContext.fresh(0, 1);
        SourceReader reader = newReader(file);
        reader.initializeState(context);
        assertThat(poll(reader, Integer.MAX_VALUE)).hasSize(RECORDS);
        reader.snapshotState(1);
        reader.close();

        SourceReader restored = newReader(file);
        restored.initializeState(InMemoryOperatorContext.restored(0, 1, context.snapshotOperatorState()));
        List<Row> rows = new ArrayList<>();
        assertThat(restored.pollNext(rows::add)).isEqualTo(PollStatus.END_OF_INPUT);
        assertThat(rows).isEmpty();
    }

    @Test
    void checkpointOfThePreviousFormatHoldingARecordIndexIsStillRestored() throws Exception {
        Path file = writeRecords("lines");
        Map<String, byte[]> oldCheckpoint = Map.of(FileSourceReader.LEGACY_STATE_NAME,
                bytes(Serializers.listOf(Serializers.LONG), List.of(1234L)));

        InMemoryOperatorContext context = InMemoryOperatorContext.restored(0, 1, oldCheckpoint);
        SourceReader restored = newReader(file);
        restored.initializeState(context);
        List<Row> first = poll(restored, 1);
        restored.snapshotState(2);
        Map<String, byte[]> next = context.snapshotOperatorState();

        assertThat(first).isEqualTo(expectedRecords().subList(1234, 1234 + FileSourceReader.MAX_ROWS_PER_POLL));
        List<FilePosition> position = read(Serializers.listOf(FilePosition.SERIALIZER), next.get(FileSourceReader.STATE_NAME));
        assertThat(position).singleElement().extracting(FilePosition::recordIndex)
                .isEqualTo(1234L + FileSourceReader.MAX_ROWS_PER_POLL);
        assertThat(read(Serializers.listOf(Serializers.LONG), next.get(FileSourceReader.LEGACY_STATE_NAME))).isEmpty();
    }

    @Test
    void fileShorterThanAtTheCheckpointFailsTheRestoreNamingTheFile() throws Exception {
        Path file = writeRecords("lines");
        Map<String, byte[]> checkpoint = checkpointAfterPolls(file, 10);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(raf.length() - 1);
        }

        SourceReader restored = newReader(file);
        restored.initializeState(InMemoryOperatorContext.restored(0, 1, checkpoint));
        assertThatThrownBy(() -> poll(restored, 1))
                .as("restarting cannot help: the job fails at once").isInstanceOf(io.weir.api.SuppressRestartsException.class)
                .hasMessageContaining("cannot resume " + file + " at byte offset")
                .hasMessageContaining("(record 2561)")
                .hasMessageContaining("bytes long but was " + (Files.size(file) + 1) + " bytes at the checkpoint")
                .hasMessageContaining("delete the job's checkpoint directory and the output its sinks committed");
    }

    @Test
    void fileWhoseBytesBeforeTheOffsetChangedFailsTheRestoreNamingTheFile() throws Exception {
        Path file = writeRecords("lines");
        Map<String, byte[]> checkpoint = checkpointAfterPolls(file, 10);
        // the same length, with the records shifted by a byte: the offset now falls inside a record
        String text = Files.readString(file);
        Files.writeString(file, " " + text.substring(0, text.length() - 1), StandardCharsets.UTF_8);

        SourceReader restored = newReader(file);
        restored.initializeState(InMemoryOperatorContext.restored(0, 1, checkpoint));
        assertThatThrownBy(() -> poll(restored, 1))
                .isInstanceOf(io.weir.api.SuppressRestartsException.class)
                .hasMessageContaining("cannot resume " + file)
                .hasMessageContaining("the 64 bytes before that offset differ from the checkpoint's");
    }

    /** The binary form of the state is in checkpoints: it must not drift (FilePosition.FORMAT_VERSION 1). */
    @Test
    void positionStateHasAFixedBinaryForm() throws Exception {
        FilePosition position = new FilePosition(300, 4096, JsonFormat.LINES, 10_000, 64, 0x12345678);
        String golden = "01" + "000000000000012c" + "0000000000001000" + "02" + "0000000000002710" + "40" + "12345678";

        assertThat(HexFormat.of().formatHex(bytes(FilePosition.SERIALIZER, position))).isEqualTo(golden);
        assertThat(read(FilePosition.SERIALIZER, HexFormat.of().parseHex(golden))).isEqualTo(position);
        assertThatThrownBy(() -> read(FilePosition.SERIALIZER, HexFormat.of().parseHex("02" + golden.substring(2))))
                .isInstanceOf(IOException.class).hasMessageContaining("format version 2");
    }

    private Map<String, byte[]> checkpointAfterPolls(Path file, int polls) throws Exception {
        InMemoryOperatorContext context = InMemoryOperatorContext.fresh(0, 1);
        SourceReader reader = newReader(file);
        reader.initializeState(context);
        poll(reader, polls);
        reader.snapshotState(1);
        reader.close();
        return new HashMap<>(context.snapshotOperatorState());
    }

    private static <T> byte[] bytes(TypeSerializer<T> serializer, T value) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        serializer.serialize(value, new DataOutputStream(out));
        return out.toByteArray();
    }

    private static <T> T read(TypeSerializer<T> serializer, byte[] bytes) throws IOException {
        return serializer.deserialize(new DataInputStream(new ByteArrayInputStream(bytes)));
    }

    private static SourceReader newReader(Path file) {
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("id", "long");
        schema.put("name", "string");
        schema.put("value", "double");
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("path", file.getFileName().toString());
        values.put("schema", schema);
        PluginConfig config = new PluginConfig("operators[0].config", values, file.getParent());
        FileSourceFactory factory = new FileSourceFactory();
        return factory.create(config, factory.outputSchema(config));
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
