package io.weir.storage.fs;

import io.weir.core.checkpoint.ChannelStateHandle;
import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.OperatorState;
import io.weir.core.checkpoint.OperatorStateHandle;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.checkpoint.StreamStateHandle.ByteStreamStateHandle;
import io.weir.core.checkpoint.StreamStateHandle.FileStateHandle;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.storage.CheckpointStateOutputStream;
import io.weir.core.storage.CheckpointStreamFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.zip.CRC32;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * State streams carry a CRC32 into {@code _metadata} (format v4), and the restore path
 * ({@link FsCheckpointStorage#findRetainedCheckpoints}) refuses a checkpoint whose state file is
 * corrupt, truncated or missing, or whose inline state does not match its checksum, with the same
 * "how to proceed" message as an unreadable {@code _metadata}.
 */
class FsCheckpointStateIntegrityTest {
    /** Bigger than the inline threshold: goes to a file. */
    private static final int FILE_BYTES = 10_000;
    /** Below the inline threshold: travels inside {@code _metadata}. */
    private static final int INLINE_BYTES = 300;

    @TempDir
    Path base;

    private FsCheckpointStorage storage;

    @BeforeEach
    void createStorage() throws IOException {
        storage = new FsCheckpointStorage(base, "job");
    }

    private static byte[] randomBytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static int crc32(byte[] data) {
        CRC32 crc = new CRC32();
        crc.update(data);
        return (int) crc.getValue();
    }

    private static StreamStateHandle write(CheckpointStreamFactory f, byte[] data) throws IOException {
        try (CheckpointStateOutputStream out = f.createOutputStream()) {
            out.write(data[0]);
            out.write(data, 1, data.length - 1);
            return out.closeAndGetHandle();
        }
    }

    /** What one completed checkpoint of {@link #complete} wrote. */
    record Written(Path directory, FileStateHandle keyedFile, ByteStreamStateHandle operatorInline, FileStateHandle channelFile) {
    }

    /** Checkpoint {@code id}: keyed state in a file, operator state inline, in-flight data of an input channel in a file. */
    private Written complete(long id) throws IOException {
        CheckpointStreamFactory streams = storage.initCheckpoint(id);
        FileStateHandle keyed = (FileStateHandle) write(streams, randomBytes(FILE_BYTES, id));
        ByteStreamStateHandle op = (ByteStreamStateHandle) write(streams, randomBytes(INLINE_BYTES, 100 + id));
        FileStateHandle channel = (FileStateHandle) write(streams, randomBytes(FILE_BYTES + 1, 200 + id));
        OperatorSubtaskState subtask = new OperatorSubtaskState(List.of(new OperatorStateHandle(Map.of("s", new long[] {0}), op)),
                List.of(new KeyGroupsStateHandle(new KeyGroupRange(0, 0), new long[] {0}, keyed)),
                List.of(new ChannelStateHandle(0, channel, FILE_BYTES - 3)), List.of());
        storage.finalizeCheckpoint(new CheckpointMetadata(id, "job", 1L, false,
                Map.of("agg", new OperatorState("agg", 1, 1, Map.of(0, subtask)))));
        return new Written(storage.checkpointDirectory(id), keyed, op, channel);
    }

    @Test
    void everyStreamCarriesTheCrc32OfItsBytesIntoTheMetadata() throws IOException {
        Written w = complete(1);
        assertThat(w.keyedFile().crc32()).hasValue(crc32(randomBytes(FILE_BYTES, 1)));
        assertThat(w.operatorInline().crc32()).hasValue(crc32(randomBytes(INLINE_BYTES, 101)));
        assertThat(w.channelFile().crc32()).hasValue(crc32(randomBytes(FILE_BYTES + 1, 201)));
        OperatorSubtaskState loaded = storage.loadCheckpoint(w.directory().toString()).operatorStates().get("agg").subtaskStates().get(0);
        assertThat(loaded.keyedState().get(0).delegate().crc32()).isEqualTo(w.keyedFile().crc32());
        assertThat(loaded.operatorState().get(0).delegate().crc32()).isEqualTo(w.operatorInline().crc32());
        assertThat(loaded.inputChannelState().get(0).delegate().crc32()).isEqualTo(w.channelFile().crc32());
        assertThat(storage.findRetainedCheckpoints(1)).containsExactly(w.directory().toString());
    }

    @Test
    void flippedByteInAKeyedStateFileIsRefusedNamingTheFileTheCheckpointAndTheWayBack() throws IOException {
        Written older = complete(1);
        Written newest = complete(2);
        Path file = Path.of(newest.keyedFile().path());
        flipByte(file, 4321);

        assertThatThrownBy(() -> storage.findRetainedCheckpoints(1)).isInstanceOf(IOException.class)
                .hasMessageContaining("checkpoint 2 of job job cannot be restored")
                .hasMessageContaining("checkpoint state file " + file)
                .hasMessageContaining("operator agg subtask 0, keyed state")
                .hasMessageContaining("CRC32 mismatch")
                .hasMessageContaining("To restore from checkpoint 1 anyway")
                .hasMessageContaining("mv " + newest.directory() + " " + newest.directory() + ".corrupt")
                .hasMessageContaining("to start the job over, delete " + storage.jobDirectory());

        // the deliberate fallback the message offers
        Files.move(newest.directory(), newest.directory().resolveSibling("chk-2.corrupt"));
        assertThat(storage.findRetainedCheckpoints(1)).containsExactly(older.directory().toString());
    }

    @Test
    void flippedByteInAChannelStateFileIsRefused() throws IOException {
        Written w = complete(1);
        Path file = Path.of(w.channelFile().path());
        flipByte(file, 0);
        assertThatThrownBy(() -> storage.findRetainedCheckpoints(1))
                .hasMessageContaining("checkpoint state file " + file)
                .hasMessageContaining("in-flight data of input channel 0")
                .hasMessageContaining("CRC32 mismatch");
    }

    @Test
    void truncatedStateFileIsRefused() throws IOException {
        Written w = complete(1);
        Path file = Path.of(w.keyedFile().path());
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(FILE_BYTES - 1);
        }
        assertThatThrownBy(() -> storage.findRetainedCheckpoints(1))
                .hasMessageContaining("checkpoint 1 of job job cannot be restored")
                .hasMessageContaining("checkpoint state file " + file)
                .hasMessageContaining("is truncated: " + (FILE_BYTES - 1) + " bytes, the checkpoint recorded " + FILE_BYTES)
                .hasMessageContaining("to start the job over");
    }

    @Test
    void deletedStateFileIsRefused() throws IOException {
        Written w = complete(1);
        Path file = Path.of(w.keyedFile().path());
        Files.delete(file);
        assertThatThrownBy(() -> storage.findRetainedCheckpoints(1))
                .hasMessageContaining("checkpoint 1 of job job cannot be restored")
                .hasMessageContaining("checkpoint state file " + file).hasMessageContaining("is missing");
    }

    @Test
    void flippedByteOfInlineStateIsRefusedEvenIfTheMetadataCrcWasRecomputed() throws IOException {
        Written w = complete(1);
        Path metadata = w.directory().resolve(FsCheckpointStorage.METADATA_FILE);
        byte[] bytes = Files.readAllBytes(metadata);
        int at = indexOf(bytes, w.operatorInline().data()) + 17;
        bytes[at] ^= 0x01;

        // as flipped on disk: the file's own CRC32 catches it
        Files.write(metadata, bytes);
        assertThatThrownBy(() -> storage.findRetainedCheckpoints(1))
                .hasMessageContaining("checkpoint 1 of job job cannot be read").hasMessageContaining("CRC32 mismatch");

        // with a consistent trailer (e.g. written so by a buggy tool): the stream's own checksum catches it
        CRC32 crc = new CRC32();
        crc.update(bytes, 0, bytes.length - 4);
        ByteBuffer.wrap(bytes).putInt(bytes.length - 4, (int) crc.getValue());
        Files.write(metadata, bytes);
        assertThatThrownBy(() -> storage.findRetainedCheckpoints(1))
                .hasMessageContaining("checkpoint 1 of job job cannot be restored")
                .hasMessageContaining("inline state (operator agg subtask 0, operator state, " + INLINE_BYTES + " bytes)")
                .hasMessageContaining(metadata.toString()).hasMessageContaining("CRC32 mismatch");
    }

    @Test
    void findingTheLatestCheckpointReadsOnlyTheMetadata() throws IOException {
        Written w = complete(1);
        Files.delete(Path.of(w.keyedFile().path()));
        // used to decide whether an earlier run finished; the restore itself verifies (above)
        assertThat(storage.findLatestCompletedCheckpoint()).contains(w.directory().toString());
    }

    @Test
    void stateOfACheckpointWithoutChecksumsIsCheckedForPresenceAndSize() throws IOException {
        storage.initCheckpoint(1);
        Path file = storage.checkpointDirectory(1).resolve("old-state");
        Files.write(file, randomBytes(FILE_BYTES, 9));
        OperatorSubtaskState subtask = new OperatorSubtaskState(List.of(), List.of(new KeyGroupsStateHandle(new KeyGroupRange(0, 0),
                new long[] {0}, new FileStateHandle(file.toString(), FILE_BYTES, OptionalInt.empty()))));
        storage.finalizeCheckpoint(new CheckpointMetadata(1, "job", 1L, false, Map.of("agg", new OperatorState("agg", 1, 1, Map.of(0, subtask)))));

        flipByte(file, 7);
        assertThat(storage.findRetainedCheckpoints(1)).as("no checksum to catch a flipped byte").hasSize(1);
        Files.write(file, Arrays.copyOf(randomBytes(FILE_BYTES, 9), FILE_BYTES - 10));
        assertThatThrownBy(() -> storage.findRetainedCheckpoints(1)).hasMessageContaining("is truncated");
    }

    private static void flipByte(Path file, long position) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(position);
            int b = f.read();
            f.seek(position);
            f.write(b ^ 0x40);
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("inline state not found in the metadata file");
    }
}
