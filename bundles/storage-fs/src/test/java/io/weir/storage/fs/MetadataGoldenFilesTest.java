package io.weir.storage.fs;

import io.weir.core.checkpoint.ChannelStateHandle;
import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.MasterState;
import io.weir.core.checkpoint.OperatorState;
import io.weir.core.checkpoint.OperatorStateHandle;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.checkpoint.StreamStateHandle.ByteStreamStateHandle;
import io.weir.core.checkpoint.StreamStateHandle.FileStateHandle;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyHashVersion;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Reads the {@code _metadata} files of every format version checked in under
 * {@code src/test/resources/golden/metadata/} and asserts their decoded content, so that a change to
 * the reader (or to the records it builds) that no longer reads an existing checkpoint fails here.
 * The expected content is written out by hand from how each file was made (see the README there), not
 * computed by the serializer. The current version's file must also be what the writer produces today:
 * a writer change that alters the bytes needs a new version (docs/checkpoint-format.md, versioning policy).
 */
class MetadataGoldenFilesTest {
    private final MetadataSerializer serializer = new MetadataSerializer();

    private static byte[] golden(String name) throws IOException {
        try (InputStream in = MetadataGoldenFilesTest.class.getResourceAsStream("/golden/metadata/" + name)) {
            assertThat(in).as("golden file %s on the test classpath", name).isNotNull();
            return in.readAllBytes();
        }
    }

    private CheckpointMetadata read(String name) throws IOException {
        return serializer.deserialize(golden(name), name);
    }

    /** The operators of {@link MetadataSerializerTest#sampleMetadata} as written into v2, v3 and v4, by hand. */
    private static final String SAMPLE_OPERATORS = """
            keyed-count\u00e9 2 5
              0
                keyed KeyGroupRange[start=0, end=3][8, 100, 100, 250] file /tmp/chk-%1$d/b-uuid 999999999999 bytes%2$s
              1
                keyed KeyGroupRange[start=4, end=4][8] inline[]%3$s
            sink 1 128
              0
                input 1 1 inline[0, 0, 0, 1, 7]%4$s
                output 0 70000 file /tmp/chk-%1$d/c-uuid 70004 bytes%5$s
            source 2 128
              0
                op empty=[],offsets=[8, 20, 31] inline[1, 2, 3, 4, 5]%6$s
              1
                op splits=[8] file /tmp/chk-%1$d/a-uuid 12345 bytes%7$s
            """;

    private static String sampleOperators(long id) {
        return String.format(SAMPLE_OPERATORS, id, "", "", "", "", "", "");
    }

    @Test
    void version1IsReadWithoutChannelStateMasterStatesOrChecksums() throws Exception {
        CheckpointMetadata m = read("v1.metadata");
        String offsets = LongStream.range(0, 128).map(i -> 8 + 10 * i).mapToObj(Long::toString)
                .collect(Collectors.joining(", ", "[", "]"));
        assertThat(MetadataSerializerTest.describe(m)).isEqualTo("""
                1 golden-job 1600000000000 false
                counter 1 128
                  0
                    keyed KeyGroupRange[start=0, end=127]%s file /var/weir/checkpoints/golden-job/chk-1/6f1c0d5e-keyed 1288 bytes
                source 1 128
                  0
                    op offsets=[8] inline[87, 72, 79, 83, 0, 0, 0, 1, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 48, 57]
                """.formatted(offsets));
        assertThat(m.masterStates()).isEmpty();
    }

    @Test
    void version2IsReadWithChannelStateButNoMasterStates() throws Exception {
        CheckpointMetadata m = read("v2.metadata");
        assertThat(MetadataSerializerTest.describe(m)).isEqualTo("2 golden-job 1700000000123 false\n" + sampleOperators(2));
        assertThat(m.masterStates()).isEmpty();
    }

    @Test
    void version3IsReadWithMasterStates() throws Exception {
        CheckpointMetadata m = read("v3.metadata");
        assertThat(MetadataSerializerTest.describe(m)).isEqualTo("3 golden-job 1700000000123 true\n"
                + "master empty-hook []\nmaster split-enumerator [4, 2]\n" + sampleOperators(3));
    }

    @Test
    void version4IsReadWithTheChecksumOfEveryStream() throws Exception {
        CheckpointMetadata m = read("v4.metadata");
        assertThat(MetadataSerializerTest.describe(m)).isEqualTo("4 golden-job 1700000000123 false\n"
                + "master split-enumerator [4, 2]\n"
                // inline CRC32s: zlib.crc32 of the bytes (an implementation other than java.util.zip)
                + String.format(SAMPLE_OPERATORS, 4, " crc32=CAFEBABE", " crc32=00000000", " crc32=415D53FF",
                        " crc32=FFFFFFFF", " crc32=470B99F4", ""));
    }

    @Test
    void version5ResolvesRelativePathsAgainstWhereTheMetadataIsNow() throws Exception {
        // written in /tmp/savepoint-golden-job-0a1b2c/, read as if that directory had been moved to /data/moved/sp/
        CheckpointMetadata m = serializer.deserialize(golden("v5.metadata"), "/data/moved/sp/_metadata");
        assertThat(MetadataSerializerTest.describe(m)).isEqualTo("""
                5 golden-job 1700000000456 false
                master split-enumerator [4, 2]
                counter 2 128
                  0
                    keyed KeyGroupRange[start=0, end=1][8, 100] file /data/moved/sp/b-uuid 250 bytes crc32=CAFEBABE
                  1
                    keyed KeyGroupRange[start=2, end=2][8] file /data/moved/sp/sub/d-uuid 8 bytes crc32=00000001
                source 1 128
                  0
                    op splits=[8] file /elsewhere/a-uuid 12345 bytes crc32=12345678
                    op offsets=[0] file /tmp/savepoint-golden-job-0a1b2c/e-uuid 64 bytes
                """);
    }

    /** The operators of {@link #version6Sample()}, in v6.metadata and (unchanged) v7.metadata, by hand. */
    private static final String VERSION6_OPERATORS = """
            counter 2 128
              0
                keyed KeyGroupRange[start=0, end=1][0, 0] file /data/job/chk-6/p-uuid 300 bytes crc32=0000002A
                  shared 000009.sst of checkpoint 4 file /data/job/shared/chk-4/s-uuid 70000 bytes crc32=CAFEBABE
                  shared 000012.sst of checkpoint 6 inline[7, 7] crc32=00000005
              1
                keyed KeyGroupRange[start=2, end=2][8] file /data/job/chk-6/q-uuid 8 bytes crc32=00000001
            """;

    @Test
    void version6IsReadWithTheSharedFilesOfIncrementalKeyedState() throws Exception {
        CheckpointMetadata m = serializer.deserialize(golden("v6.metadata"), "/data/job/chk-6/_metadata");
        assertThat(MetadataSerializerTest.describe(m)).isEqualTo("6 golden-job 1700000000789 false\n" + VERSION6_OPERATORS);
    }

    @Test
    void filesBeforeVersion7PlacedTheirKeysWithTheLegacyKeyHash() throws Exception {
        for (String name : List.of("v1.metadata", "v2.metadata", "v3.metadata", "v4.metadata", "v6.metadata")) {
            assertThat(read(name).keyHashVersion()).as(name).isEqualTo(KeyHashVersion.LEGACY);
        }
        assertThat(serializer.deserialize(golden("v5.metadata"), "/data/moved/sp/_metadata").keyHashVersion())
                .isEqualTo(KeyHashVersion.LEGACY);
    }

    @Test
    void version7IsReadWithTheKeyHashVersion() throws Exception {
        CheckpointMetadata m = serializer.deserialize(golden("v7.metadata"), "/data/job/chk-6/_metadata");
        assertThat(m.keyHashVersion()).isEqualTo(KeyHashVersion.FLINK);
        assertThat(MetadataSerializerTest.describe(m)).isEqualTo("7 golden-job 1700000000789 false\n" + VERSION6_OPERATORS);
    }

    @Test
    void anUnknownKeyHashVersionIsRejected() throws Exception {
        byte[] v7 = golden("v7.metadata");
        // the key hash version byte follows id (8), job name (4 + 10), timestamp (8) and isFinal (1)
        int at = MetadataSerializer.HEADER_BYTES + 8 + 4 + "golden-job".length() + 8 + 1;
        assertThat(v7[at]).isEqualTo((byte) 2);
        v7[at] = 9;
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(v7, 0, v7.length - 4);
        java.nio.ByteBuffer.wrap(v7).putInt(v7.length - 4, (int) crc.getValue());
        assertThatThrownBy(() -> serializer.deserialize(v7, "v7-from-the-future"))
                .hasMessageContaining("v7-from-the-future").hasMessageContaining("unknown key hash version 9");
    }

    @Test
    void theWriterStillProducesTheCurrentVersionsGoldenBytes() throws Exception {
        assertThat(MetadataSerializer.CURRENT_VERSION).as("a new format version needs a golden file and a test here").isEqualTo(7);
        assertThat(serializer.serialize(version7Sample(), java.nio.file.Path.of(VERSION6_DIRECTORY)))
                .isEqualTo(golden("v7.metadata"));
    }

    /** What {@code v7.metadata} holds: {@link #version6Sample()} as checkpoint 7 of a job placing keys as Flink does. */
    static CheckpointMetadata version7Sample() {
        CheckpointMetadata v6 = version6Sample();
        return new CheckpointMetadata(7, v6.jobName(), v6.timestamp(), v6.isFinal(), v6.operatorStates(), v6.masterStates(),
                KeyHashVersion.FLINK);
    }

    /** Where {@link #version6Sample()}'s {@code _metadata} was written. */
    static final String VERSION6_DIRECTORY = "/data/job/chk-6";

    /**
     * What {@code v6.metadata} holds: an incremental keyed handle (offsets 0, a private stream inside the
     * checkpoint directory, written relative) with two shared files, one outside the checkpoint directory
     * (absolute, kind 3) uploaded by checkpoint 4 and one inline uploaded by checkpoint 6 itself; and a plain
     * keyed handle, whose shared file count is 0.
     */
    static CheckpointMetadata version6Sample() {
        KeyGroupsStateHandle incremental = new KeyGroupsStateHandle(new KeyGroupRange(0, 1), new long[2],
                new FileStateHandle(VERSION6_DIRECTORY + "/p-uuid", 300, OptionalInt.of(42)), List.of(
                        new io.weir.core.checkpoint.SharedFileHandle("000009.sst",
                                new FileStateHandle("/data/job/shared/chk-4/s-uuid", 70_000, OptionalInt.of(0xCAFEBABE)), 4),
                        new io.weir.core.checkpoint.SharedFileHandle("000012.sst",
                                new ByteStreamStateHandle(new byte[] {7, 7}, OptionalInt.of(5)), 6)));
        KeyGroupsStateHandle plain = new KeyGroupsStateHandle(new KeyGroupRange(2, 2), new long[] {8},
                new FileStateHandle(VERSION6_DIRECTORY + "/q-uuid", 8, OptionalInt.of(1)));
        OperatorState counter = new OperatorState("counter", 2, 128, Map.of(
                0, new OperatorSubtaskState(List.of(), List.of(incremental)),
                1, new OperatorSubtaskState(List.of(), List.of(plain))));
        return new CheckpointMetadata(6, "golden-job", 1_700_000_000_789L, false, Map.of("counter", counter));
    }

    @Test
    void relativeHandleKindIsRejectedInOlderVersions() throws Exception {
        byte[] v5 = golden("v5.metadata");
        java.nio.ByteBuffer.wrap(v5).putInt(4, 4);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(v5, 0, v5.length - 4);
        java.nio.ByteBuffer.wrap(v5).putInt(v5.length - 4, (int) crc.getValue());
        assertThatThrownBy(() -> serializer.deserialize(v5, "v5-as-v4"))
                .hasMessageContaining("v5-as-v4").hasMessageContaining("does not exist in format version 4");
    }

    @Test
    void aRelativePathLeavingTheMetadataDirectoryIsRejected() throws Exception {
        CheckpointMetadata escaping = new CheckpointMetadata(1, "j", 1L, false, Map.of("op", new OperatorState("op", 1, 128,
                Map.of(0, new OperatorSubtaskState(List.of(new OperatorStateHandle(Map.of(),
                        new FileStateHandle("/base/x-uuid", 1, OptionalInt.of(7)))), List.of())))));
        byte[] bytes = serializer.serialize(escaping, java.nio.file.Path.of("/base"));
        // rewrite the relative name "x-uuid" (6 bytes) to "../x/y", same length, and fix the CRC
        String text = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1).replace("x-uuid", "../x/y");
        byte[] forged = text.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(forged, 0, forged.length - 4);
        java.nio.ByteBuffer.wrap(forged).putInt(forged.length - 4, (int) crc.getValue());
        assertThatThrownBy(() -> serializer.deserialize(forged, "/base/_metadata"))
                .hasMessageContaining("'../x/y' does not name a file inside /base");
    }

    /** Where {@link #version5Sample()}'s {@code _metadata} was written. */
    static final String VERSION5_DIRECTORY = "/tmp/savepoint-golden-job-0a1b2c";

    /**
     * What {@code v5.metadata} holds, written for a {@code _metadata} in {@link #VERSION5_DIRECTORY}: two
     * checksummed files inside it (one in a subdirectory; relative, kind 5), a checksummed file outside it
     * (absolute, kind 3) and an unchecksummed file inside it (absolute, kind 1: only checksummed files are
     * made relative), and one master state.
     */
    static CheckpointMetadata version5Sample() {
        OperatorStateHandle outside = new OperatorStateHandle(Map.of("splits", new long[] {8}),
                new FileStateHandle("/elsewhere/a-uuid", 12_345, OptionalInt.of(0x12345678)));
        OperatorStateHandle unchecked = new OperatorStateHandle(Map.of("offsets", new long[] {0}),
                new FileStateHandle(VERSION5_DIRECTORY + "/e-uuid", 64));
        KeyGroupsStateHandle keyed0 = new KeyGroupsStateHandle(new KeyGroupRange(0, 1), new long[] {8, 100},
                new FileStateHandle(VERSION5_DIRECTORY + "/b-uuid", 250, OptionalInt.of(0xCAFEBABE)));
        KeyGroupsStateHandle keyed1 = new KeyGroupsStateHandle(new KeyGroupRange(2, 2), new long[] {8},
                new FileStateHandle(VERSION5_DIRECTORY + "/sub/d-uuid", 8, OptionalInt.of(1)));
        OperatorState source = new OperatorState("source", 1, 128, Map.of(
                0, new OperatorSubtaskState(List.of(outside, unchecked), List.of())));
        OperatorState counter = new OperatorState("counter", 2, 128, Map.of(
                0, new OperatorSubtaskState(List.of(), List.of(keyed0)),
                1, new OperatorSubtaskState(List.of(), List.of(keyed1))));
        return new CheckpointMetadata(5, "golden-job", 1_700_000_000_456L, false,
                Map.of("source", source, "counter", counter),
                List.of(new MasterState("split-enumerator", new byte[] {4, 2})));
    }

    @Test
    void checksummedHandleKindsAreRejectedInOlderVersions() throws Exception {
        byte[] v4 = golden("v4.metadata");
        // same bytes, header claiming version 3: the reader must not accept kind 3/4 handles there
        java.nio.ByteBuffer.wrap(v4).putInt(4, 3);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(v4, 0, v4.length - 4);
        java.nio.ByteBuffer.wrap(v4).putInt(v4.length - 4, (int) crc.getValue());
        assertThatThrownBy(() -> serializer.deserialize(v4, "v4-as-v3"))
                .hasMessageContaining("v4-as-v3").hasMessageContaining("does not exist in format version 3");
    }

    /**
     * What {@code v4.metadata} holds: {@link MetadataSerializerTest#sampleMetadata}'s operators with a
     * CRC32 on every handle but one (a handle without checksum is still written, as kind 1), and one master state.
     */
    static CheckpointMetadata version4Sample() {
        OperatorStateHandle opInline = new OperatorStateHandle(
                Map.of("offsets", new long[] {8, 20, 31}, "empty", new long[0]),
                new ByteStreamStateHandle(new byte[] {1, 2, 3, 4, 5}, OptionalInt.of(0x470B99F4)));
        OperatorStateHandle opFile = new OperatorStateHandle(Map.of("splits", new long[] {8}),
                new FileStateHandle("/tmp/chk-4/a-uuid", 12_345));
        KeyGroupsStateHandle keyedFile = new KeyGroupsStateHandle(new KeyGroupRange(0, 3), new long[] {8, 100, 100, 250},
                new FileStateHandle("/tmp/chk-4/b-uuid", 999_999_999_999L, OptionalInt.of(0xCAFEBABE)));
        KeyGroupsStateHandle keyedInline = new KeyGroupsStateHandle(new KeyGroupRange(4, 4), new long[] {8},
                new ByteStreamStateHandle(new byte[0], OptionalInt.of(0)));
        OperatorState source = new OperatorState("source", 2, 128, Map.of(
                0, new OperatorSubtaskState(List.of(opInline), List.of()),
                1, new OperatorSubtaskState(List.of(opFile), List.of())));
        OperatorState counter = new OperatorState("keyed-count\u00e9", 2, 5, Map.of(
                0, new OperatorSubtaskState(List.of(), List.of(keyedFile)),
                1, new OperatorSubtaskState(List.of(), List.of(keyedInline))));
        ChannelStateHandle input = new ChannelStateHandle(1,
                new ByteStreamStateHandle(new byte[] {0, 0, 0, 1, 7}, OptionalInt.of(0x415D53FF)), 1);
        ChannelStateHandle output = new ChannelStateHandle(0,
                new FileStateHandle("/tmp/chk-4/c-uuid", 70_004, OptionalInt.of(-1)), 70_000);
        OperatorState sink = new OperatorState("sink", 1, 128, Map.of(0,
                new OperatorSubtaskState(List.of(), List.of(), List.of(input), List.of(output))));
        return new CheckpointMetadata(4, "golden-job", 1_700_000_000_123L, false,
                Map.of("source", source, "keyed-count\u00e9", counter, "sink", sink),
                List.of(new MasterState("split-enumerator", new byte[] {4, 2})));
    }
}
