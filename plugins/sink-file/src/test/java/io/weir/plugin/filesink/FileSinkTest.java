package io.weir.plugin.filesink;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.operator.OperatorContext;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.state.KeyedStateStore;
import io.weir.api.state.OperatorStateStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class FileSinkTest {
    private static final Schema SCHEMA = Schema.builder().field("origin", FieldType.STRING)
            .field("delay", FieldType.LONG).field("ratio", FieldType.DOUBLE).build();

    @TempDir
    Path tmp;

    @Test
    void committedFilesContainExactlyTheRowsOfCommittedTransactions() throws Exception {
        FileSink sink = sink(0);
        FileTransaction first = sink.beginTransaction();
        sink.write(first, row("DTW", 1));
        sink.write(first, row("LAS", 2));
        sink.preCommit(first);
        FileTransaction second = sink.beginTransaction();
        sink.write(second, row("SFO", 3));
        sink.preCommit(second);
        FileTransaction third = sink.beginTransaction();
        sink.write(third, row("OAK", 4));

        sink.commit(first);
        assertThat(committedLines()).containsExactly(
                "{\"origin\":\"DTW\",\"delay\":1,\"ratio\":0.5}", "{\"origin\":\"LAS\",\"delay\":2,\"ratio\":0.5}");

        sink.commit(second);
        assertThat(committedLines()).hasSize(3).contains("{\"origin\":\"SFO\",\"delay\":3,\"ratio\":0.5}");
        assertThat(committedFiles()).allSatisfy(f -> assertThat(f.getFileName().toString()).matches("part-0-[0-9a-f-]{36}\\.jsonl"));
    }

    @Test
    void freshRunIntoADirectoryWithCommittedFilesIsRefusedNamingTheDirectoryAndWhatToDo() throws Exception {
        FileSink earlier = sink(0);
        FileTransaction txn = earlier.beginTransaction();
        earlier.write(txn, row("DTW", 1));
        earlier.commit(earlier.preCommit(txn));

        for (int subtask : new int[] {0, 1}) {
            FileSink fresh = new FileSink(new FileSinkSettings(tmp, "part"), SCHEMA);
            assertThatThrownBy(() -> fresh.open(new Context(subtask)))
                    .isInstanceOf(io.weir.api.SuppressRestartsException.class)
                    .hasMessageContaining("already holds 1 committed file(s) of an earlier run")
                    .hasMessageContaining("delete " + tmp)
                    .hasMessageContaining("execution.checkpointing.dir");
        }
        FileSink restored = new FileSink(new FileSinkSettings(tmp, "part"), SCHEMA);
        restored.open(new Context(0, true)); // a restored run owns those files: no refusal
        assertThat(committedLines()).containsExactly("{\"origin\":\"DTW\",\"delay\":1,\"ratio\":0.5}");
    }

    @Test
    void valuesAreEncodedAsValidJsonWithEscapesBase64AndNulls() throws Exception {
        Schema schema = Schema.builder().field("s", FieldType.STRING).field("b", FieldType.BYTES)
                .field("d", FieldType.DOUBLE).field("ok", FieldType.BOOLEAN).field("ts", FieldType.TIMESTAMP)
                .field("n", FieldType.INT).build();
        FileSink sink = new FileSink(new FileSinkSettings(tmp, "out"), schema);
        sink.open(new Context(0));
        FileTransaction txn = sink.beginTransaction();
        sink.write(txn, new Row(schema, "a\"b\\c\nd\u0001é", new byte[] {1, 2, 3}, 1.0E-5, true, 42L, null));
        sink.write(txn, new Row(schema, null, null, Double.NaN, null, null, 7));
        sink.preCommit(txn);
        sink.commit(txn);

        assertThat(committedLines()).containsExactly(
                "{\"s\":\"a\\\"b\\\\c\\nd\\u0001é\",\"b\":\"AQID\",\"d\":1.0E-5,\"ok\":true,\"ts\":42,\"n\":null}",
                "{\"s\":null,\"b\":null,\"d\":null,\"ok\":null,\"ts\":null,\"n\":7}");
    }

    @Test
    void commitIsIdempotentAlsoFromARestoredSink() throws Exception {
        FileSink sink = sink(0);
        FileTransaction txn = sink.beginTransaction();
        sink.write(txn, row("DTW", 1));
        sink.preCommit(txn);
        sink.commit(txn);
        sink.commit(txn);
        FileTransaction restoredHandle = roundTrip(txn);
        FileSink restored = new FileSink(new FileSinkSettings(tmp, "part"), SCHEMA);
        restored.open(new Context(0, true));
        restored.commit(restoredHandle);

        assertThat(committedLines()).containsExactly("{\"origin\":\"DTW\",\"delay\":1,\"ratio\":0.5}");
    }

    @Test
    void directoryOfAnotherJobIsRefusedSoNeitherDeletesTheOthersPendingTransactions() throws Exception {
        FileSink first = sink(0);
        FileTransaction pending = first.beginTransaction();
        first.write(pending, row("DTW", 1));
        first.preCommit(pending);
        sink(1); // another subtask of the same job shares the directory

        FileSink other = new FileSink(new FileSinkSettings(tmp, "part"), SCHEMA);
        assertThatThrownBy(() -> other.open(new Context(0, true, "other-job")))
                .isInstanceOf(io.weir.api.SuppressRestartsException.class)
                .hasMessageContaining("holds the output of job 'test-job'")
                .hasMessageContaining("a directory of its own");
        assertThat(Path.of(pending.inProgressPath())).as("the first job's pending transaction").exists();
    }

    @Test
    void commitOfATransactionWhoseFilesVanishedThrowsNamingTheFile() throws Exception {
        FileSink sink = sink(0);
        FileTransaction txn = sink.beginTransaction();
        sink.write(txn, row("DTW", 1));
        sink.preCommit(txn);
        Files.delete(Path.of(txn.inProgressPath()));

        assertThatThrownBy(() -> sink.commit(txn))
                .as("a restart cannot bring the data back").isInstanceOf(io.weir.api.SuppressRestartsException.class)
                .hasMessageContaining(txn.inProgressPath())
                .hasMessageContaining("lost")
                .hasMessageContaining("delete " + tmp);
    }

    @Test
    void restoredSinkDetectsALostTransactionFromTheRowCountInItsHandle() throws Exception {
        FileSink sink = sink(0);
        FileTransaction txn = sink.beginTransaction();
        sink.write(txn, row("DTW", 1));
        sink.write(txn, row("SFO", 2));
        FileTransaction recorded = roundTrip(sink.preCommit(txn));
        assertThat(recorded.rows()).isEqualTo(2);
        Files.delete(Path.of(txn.inProgressPath()));

        assertThatThrownBy(() -> sink(0).commit(recorded))
                .isInstanceOf(io.weir.api.SuppressRestartsException.class)
                .hasMessageContaining("2 rows").hasMessageContaining("lost");
    }

    @Test
    void commitBeforePreCommitIsRejectedNamingBothStates() throws Exception {
        FileSink sink = sink(0);
        FileTransaction txn = sink.beginTransaction();
        sink.write(txn, row("DTW", 1));

        assertThatThrownBy(() -> sink.commit(txn)).hasMessageContaining("from WRITING to COMMITTED");
    }

    @Test
    void emptyTransactionLeavesNoFileAndCommitsAsNoOpAlsoAfterRestore() throws Exception {
        FileSink sink = sink(0);
        FileTransaction txn = sink.beginTransaction();
        FileTransaction recorded = sink.preCommit(txn);
        assertThat(recorded.rows()).isZero();
        sink.commit(recorded);
        sink(0).commit(roundTrip(recorded));

        try (Stream<Path> files = Files.list(tmp)) {
            assertThat(files).as("nothing but the directory's owner record")
                    .allSatisfy(f -> assertThat(f.getFileName().toString()).isEqualTo(FileSink.OWNER_FILE));
        }
    }

    @Test
    void abortDeletesTheInProgressFile() throws Exception {
        FileSink sink = sink(0);
        FileTransaction txn = sink.beginTransaction();
        sink.write(txn, row("DTW", 1));
        sink.abort(txn);

        assertThat(Path.of(txn.inProgressPath())).doesNotExist();
        assertThat(committedFiles()).isEmpty();
    }

    @Test
    void abortLeftoversRemovesOnlyThisSubtasksInProgressFilesNotInKeep() throws Exception {
        FileSink before = sink(1);
        FileTransaction kept = before.beginTransaction();
        before.write(kept, row("DTW", 1));
        before.preCommit(kept);
        FileTransaction leftover = before.beginTransaction();
        before.write(leftover, row("LAS", 2));
        FileSink otherSubtask = sink(11);
        FileTransaction others = otherSubtask.beginTransaction();
        otherSubtask.write(others, row("SFO", 3));
        otherSubtask.preCommit(others);
        before.close();

        FileSink restored = sink(1);
        restored.abortLeftovers(List.of(roundTrip(kept)));

        assertThat(Path.of(kept.inProgressPath())).exists();
        assertThat(Path.of(leftover.inProgressPath())).doesNotExist();
        assertThat(Path.of(others.inProgressPath())).exists();
        restored.commit(roundTrip(kept));
        assertThat(committedLines()).containsExactly("{\"origin\":\"DTW\",\"delay\":1,\"ratio\":0.5}");
    }

    @Test
    void abortLeftoversAlsoRemovesThoseOfSubtasksBeyondTheParallelismThatMapToThisOne() throws Exception {
        // the test context has parallelism 12: subtask 13 of an earlier, larger run maps to 13 % 12 = 1, 14 to 2
        List<FileTransaction> leftovers = new java.util.ArrayList<>();
        for (int subtask : new int[] {13, 14, 25}) {
            FileSink earlier = sink(subtask);
            FileTransaction t = earlier.beginTransaction();
            earlier.write(t, row("SFO", subtask));
            leftovers.add(earlier.preCommit(t));
            earlier.close();
        }

        sink(1).abortLeftovers(List.of());

        assertThat(Path.of(leftovers.get(0).inProgressPath())).as("of subtask 13").doesNotExist();
        assertThat(Path.of(leftovers.get(1).inProgressPath())).as("of subtask 14, which maps to 2").exists();
        assertThat(Path.of(leftovers.get(2).inProgressPath())).as("of subtask 25").doesNotExist();
    }

    @Test
    void sinkPathThatIsAFileIsAConfigError() throws Exception {
        Path file = Files.writeString(tmp.resolve("x"), "");
        PluginConfig config = new PluginConfig("operators[3].config", Map.of("path", "x"), tmp);

        assertThatThrownBy(() -> new FileSinkFactory().validate(config, SCHEMA))
                .hasMessage("operators[3].config.path " + file + " exists but is not a directory");
    }

    @Test
    void sinkPathUnderAFileCannotBeCreatedAndValidationCreatesNothing() throws Exception {
        Path file = Files.writeString(tmp.resolve("afile"), "");
        PluginConfig underFile = new PluginConfig("operators[2].config", Map.of("path", "afile/a/b"), tmp);
        assertThatThrownBy(() -> new FileSinkFactory().validate(underFile, SCHEMA))
                .hasMessage("operators[2].config.path " + file.resolve("a/b") + " cannot be created: " + file + " is a file, not a directory");

        PluginConfig creatable = new PluginConfig("operators[2].config", Map.of("path", "new/deeper"), tmp);
        new FileSinkFactory().validate(creatable, SCHEMA);
        assertThat(tmp.resolve("new")).doesNotExist();
    }

    @Test
    void sinkPathOnAFileSystemThatTakesNoDirectoriesIsNotWritable() {
        assumeTrue(Files.isDirectory(Path.of("/proc/self")), "needs Linux /proc");
        PluginConfig config = new PluginConfig("operators[2].config", Map.of("path", "/proc/weir-out"), tmp);
        assertThatThrownBy(() -> new FileSinkFactory().validate(config, SCHEMA))
                .hasMessage("operators[2].config.path /proc/weir-out cannot be created: /proc is not writable");
        PluginConfig existing = new PluginConfig("operators[2].config", Map.of("path", "/proc"), tmp);
        assertThatThrownBy(() -> new FileSinkFactory().validate(existing, SCHEMA))
                .hasMessage("operators[2].config.path /proc is not writable");
    }

    @Test
    void factoryIsFoundThroughServiceLoaderAndCreatesTheDirectory() throws Exception {
        SinkFactory factory = ServiceLoader.load(SinkFactory.class).findFirst().orElseThrow();
        PluginConfig config = new PluginConfig("operators[3].config", Map.of("path", "out/sub"), tmp);
        factory.validate(config, SCHEMA);
        factory.create(config, SCHEMA).open(new Context(0));

        assertThat(factory.type()).isEqualTo("file-2pc");
        assertThat(tmp.resolve("out/sub")).isDirectory();
    }

    private FileSink sink(int subtask) throws Exception {
        FileSink sink = new FileSink(new FileSinkSettings(tmp, "part"), SCHEMA);
        sink.open(new Context(subtask));
        return sink;
    }

    private static Row row(String origin, long delay) {
        return new Row(SCHEMA, origin, delay, 0.5);
    }

    private static FileTransaction roundTrip(FileTransaction txn) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        FileTransaction.SERIALIZER.serialize(txn, new DataOutputStream(bytes));
        return FileTransaction.SERIALIZER.deserialize(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
    }

    private List<Path> committedFiles() throws Exception {
        try (Stream<Path> files = Files.list(tmp)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".jsonl")).sorted().toList();
        }
    }

    private List<String> committedLines() throws Exception {
        List<String> lines = new java.util.ArrayList<>();
        for (Path f : committedFiles()) {
            lines.addAll(Files.readAllLines(f));
        }
        return lines;
    }

    private record Context(int subtaskIndex, boolean isRestored, String jobName) implements OperatorContext {
        Context(int subtaskIndex) {
            this(subtaskIndex, false);
        }

        Context(int subtaskIndex, boolean isRestored) {
            this(subtaskIndex, isRestored, "test-job");
        }

        @Override
        public String operatorId() {
            return "sink";
        }

        @Override
        public int parallelism() {
            return 12;
        }

        @Override
        public OperatorStateStore operatorState() {
            throw new UnsupportedOperationException();
        }

        @Override
        public KeyedStateStore keyedState() {
            throw new UnsupportedOperationException();
        }
    }
}
