package io.weir.storage.fs;

import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.OperatorState;
import io.weir.core.checkpoint.OperatorStateHandle;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.checkpoint.StreamStateHandle.FileStateHandle;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.storage.CheckpointStateOutputStream;
import io.weir.core.storage.CheckpointStreamFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Savepoints and relocatable checkpoints (PROTOCOL.md §7): every state file inside the directory, named from
 * {@code _metadata} by a relative path, so that the directory can be moved and still restores byte for byte.
 */
class FsSavepointStorageTest {
    private static final int FILE_BYTES = 20_000;

    @TempDir
    Path base;

    private FsCheckpointStorage storage;

    @BeforeEach
    void createStorage() throws IOException {
        storage = new FsCheckpointStorage(base.resolve("checkpoints"), "job");
    }

    private static byte[] randomBytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static StreamStateHandle write(CheckpointStreamFactory f, byte[] data) throws IOException {
        try (CheckpointStateOutputStream out = f.createOutputStream()) {
            out.write(data, 0, data.length);
            return out.closeAndGetHandle();
        }
    }

    private static byte[] read(StreamStateHandle h) throws IOException {
        try (InputStream in = h.open()) {
            return in.readAllBytes();
        }
    }

    /** Writes keyed state (a file) as a task would, through {@code resolveCheckpoint}, and finalizes {@code id}. */
    private String completeWithKeyedFile(long id, long seed) throws IOException {
        StreamStateHandle keyed = write(storage.resolveCheckpoint(id), randomBytes(FILE_BYTES, seed));
        assertThat(keyed).isInstanceOf(FileStateHandle.class);
        OperatorSubtaskState subtask = new OperatorSubtaskState(List.of(new OperatorStateHandle(Map.of(), keyed)),
                List.of(new KeyGroupsStateHandle(new KeyGroupRange(0, 0), new long[] {0}, keyed)));
        return storage.finalizeCheckpoint(new CheckpointMetadata(id, "job", 1L, false,
                Map.of("agg", new OperatorState("agg", 1, 128, Map.of(0, subtask)))));
    }

    private static byte[] keyedBytes(CheckpointMetadata m) throws IOException {
        return read(m.operatorStates().get("agg").subtaskStates().get(0).keyedState().get(0).delegate());
    }

    private static String keyedPath(CheckpointMetadata m) {
        return ((FileStateHandle) m.operatorStates().get("agg").subtaskStates().get(0).keyedState().get(0).delegate()).path();
    }

    @Test
    void savepointIsWrittenIntoItsOwnDirectoryUnderTheTargetWithEveryFileInside() throws IOException {
        Path target = base.resolve("savepoints");
        storage.initSavepoint(7, target.toString());
        String pointer = completeWithKeyedFile(7, 7);

        Path dir = Path.of(pointer);
        assertThat(dir.getParent()).isEqualTo(target.toAbsolutePath());
        assertThat(dir.getFileName().toString()).matches("savepoint-job-[0-9a-f]{6}");
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).contains("_metadata").hasSize(2);
        }
        assertThat(storage.checkpointDirectory(7)).doesNotExist();
        // the savepoint is not one of the job's own checkpoints
        assertThat(storage.findLatestCompletedCheckpoint()).isEmpty();
        String metadataText = new String(Files.readAllBytes(dir.resolve("_metadata")), StandardCharsets.ISO_8859_1);
        assertThat(metadataText).as("no absolute path in a savepoint's _metadata").doesNotContain(base.toString());
    }

    @Test
    void movedSavepointRestoresEveryByteAndPassesVerification() throws IOException {
        storage.initSavepoint(3, base.resolve("savepoints").toString());
        Path original = Path.of(completeWithKeyedFile(3, 42));
        Path moved = base.resolve("elsewhere/deeper/renamed");
        Files.createDirectories(moved.getParent());
        Files.move(original, moved);

        CheckpointMetadata m = storage.loadCheckpoint(moved.toString());
        assertThat(original).doesNotExist();
        assertThat(keyedPath(m)).startsWith(moved.toString());
        assertThat(keyedBytes(m)).isEqualTo(randomBytes(FILE_BYTES, 42));
        assertThatCode(() -> new CheckpointStateVerifier().verify(m, moved.resolve("_metadata").toString()))
                .doesNotThrowAnyException();
    }

    @Test
    void restoringAMovedSavepointWithADamagedStateFileIsRefusedNamingTheFile() throws IOException {
        storage.initSavepoint(4, base.resolve("savepoints").toString());
        Path moved = base.resolve("moved-sp");
        Files.move(Path.of(completeWithKeyedFile(4, 4)), moved);
        assertThat(keyedBytes(storage.loadCheckpointForRestore(moved.toString()))).isEqualTo(randomBytes(FILE_BYTES, 4));
        Path stateFile = Path.of(keyedPath(storage.loadCheckpoint(moved.toString())));
        byte[] bytes = Files.readAllBytes(stateFile);
        bytes[100] ^= 1;
        Files.write(stateFile, bytes);

        assertThatThrownBy(() -> storage.loadCheckpointForRestore(moved.toString()))
                .hasMessageContaining(stateFile.toString()).hasMessageContaining("CRC32 mismatch");
    }

    @Test
    void retainedCheckpointMovedOutOfTheJobDirectoryRestores() throws IOException {
        storage.initCheckpoint(5);
        Path original = Path.of(completeWithKeyedFile(5, 5));
        assertThat(original).isEqualTo(storage.checkpointDirectory(5));
        Path moved = base.resolve("kept/chk-5");
        Files.createDirectories(moved.getParent());
        Files.move(original, moved);

        CheckpointMetadata m = storage.loadCheckpoint(moved.resolve("_metadata").toString());
        assertThat(keyedPath(m)).startsWith(moved.toString());
        assertThat(keyedBytes(m)).isEqualTo(randomBytes(FILE_BYTES, 5));
        assertThat(storage.findLatestCompletedCheckpoint()).isEmpty();
    }

    @Test
    void savepointRecordsSurviveANewStorageAndANewerCheckpointMakesThemObsolete() throws IOException {
        storage.initCheckpoint(1);
        completeWithKeyedFile(1, 1);
        storage.initSavepoint(2, base.resolve("savepoints").toString());
        String sp2 = completeWithKeyedFile(2, 2);
        storage.recordSavepoint(2, sp2);
        storage.initSavepoint(3, base.resolve("savepoints").toString());
        String sp3 = completeWithKeyedFile(3, 3);
        storage.recordSavepoint(3, sp3);

        FsCheckpointStorage reopened = new FsCheckpointStorage(base.resolve("checkpoints"), "job");
        assertThat(reopened.latestRecordedSavepoint()).contains(new io.weir.core.storage.CheckpointStorage.RecordedSavepoint(3, sp3));

        reopened.initCheckpoint(4);
        storage = reopened;
        completeWithKeyedFile(4, 4);
        assertThat(reopened.latestRecordedSavepoint()).isEmpty();
        assertThat(Path.of(sp2).resolve("_metadata")).as("only the records go, never the savepoints").exists();

        reopened.recordSavepoint(5, sp3);
        reopened.forgetSavepoints();
        assertThat(reopened.latestRecordedSavepoint()).isEmpty();
    }

    @Test
    void abortedSavepointIsDiscardedButACompletedOneNeverIs() throws IOException {
        Path target = base.resolve("savepoints");
        storage.initSavepoint(1, target.toString());
        write(storage.resolveCheckpoint(1), randomBytes(FILE_BYTES, 1));
        Path aborted;
        try (Stream<Path> dirs = Files.list(target)) {
            aborted = dirs.findFirst().orElseThrow();
        }
        storage.discardCheckpoint(1);
        assertThat(aborted).doesNotExist();

        storage.initSavepoint(2, target.toString());
        Path completed = Path.of(completeWithKeyedFile(2, 2));
        storage.discardCheckpoint(2); // e.g. a late discard of the same id: must not touch the user's savepoint
        assertThat(completed.resolve("_metadata")).exists();
        assertThat(keyedBytes(storage.loadCheckpoint(completed.toString()))).isEqualTo(randomBytes(FILE_BYTES, 2));
    }

    /**
     * A discard of an aborted savepoint that died between renaming its directory aside and deleting it leaves
     * {@code savepoint-<job>-<hex>.discarding-<hex>}; the job's next savepoint to that target deletes it, and leaves
     * another job's leftover (even one whose name starts with this job's) and the job's completed savepoints alone.
     */
    @Test
    void nextSavepointDeletesAnAbortedSavepointADiscardLeftAside() throws IOException {
        Path target = base.resolve("savepoints");
        storage.initSavepoint(1, target.toString());
        Path completed = Path.of(completeWithKeyedFile(1, 1));
        Path leftover = target.resolve("savepoint-job-0a1b2c" + FsCheckpointStorage.DISCARDING_INFIX + "0badf00d");
        Files.createDirectories(leftover.resolve("nested"));
        Files.write(leftover.resolve("nested").resolve("state"), randomBytes(100, 1));
        Path othersLeftover = Files.createDirectories( // job "job-x": its names start with this job's prefix too
                target.resolve("savepoint-job-x-0a1b2c" + FsCheckpointStorage.DISCARDING_INFIX + "0badf00d"));

        storage.initSavepoint(2, target.toString());

        assertThat(leftover).doesNotExist();
        assertThat(othersLeftover).exists();
        assertThat(completed.resolve("_metadata")).exists();
    }
}
