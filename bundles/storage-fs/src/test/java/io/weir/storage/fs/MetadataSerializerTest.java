package io.weir.storage.fs;

import io.weir.core.checkpoint.ChannelStateHandle;
import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.MasterState;
import io.weir.core.checkpoint.OperatorState;
import io.weir.core.checkpoint.OperatorStateHandle;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.checkpoint.StreamStateHandle.ByteStreamStateHandle;
import io.weir.core.checkpoint.StreamStateHandle.FileStateHandle;
import io.weir.core.state.KeyGroupRange;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MetadataSerializerTest {
    private final MetadataSerializer serializer = new MetadataSerializer();

    /** Metadata using every kind of handle: operator + keyed, file + inline, empty subtask, empty offsets. */
    static CheckpointMetadata sampleMetadata(String job, long id) {
        OperatorStateHandle opInline = new OperatorStateHandle(
                Map.of("offsets", new long[] {8, 20, 31}, "empty", new long[0]),
                new ByteStreamStateHandle(new byte[] {1, 2, 3, 4, 5}));
        OperatorStateHandle opFile = new OperatorStateHandle(Map.of("splits", new long[] {8}),
                new FileStateHandle("/tmp/chk-" + id + "/a-uuid", 12_345));
        KeyGroupsStateHandle keyedFile = new KeyGroupsStateHandle(new KeyGroupRange(0, 3), new long[] {8, 100, 100, 250},
                new FileStateHandle("/tmp/chk-" + id + "/b-uuid", 999_999_999_999L));
        KeyGroupsStateHandle keyedInline = new KeyGroupsStateHandle(new KeyGroupRange(4, 4), new long[] {8},
                new ByteStreamStateHandle(new byte[0]));
        OperatorState source = new OperatorState("source", 2, 128, Map.of(
                0, new OperatorSubtaskState(List.of(opInline), List.of()),
                1, new OperatorSubtaskState(List.of(opFile), List.of())));
        OperatorState counter = new OperatorState("keyed-count\u00e9", 2, 5, Map.of(
                0, new OperatorSubtaskState(List.of(), List.of(keyedFile)),
                1, new OperatorSubtaskState(List.of(), List.of(keyedInline))));
        ChannelStateHandle input = new ChannelStateHandle(1, new ByteStreamStateHandle(new byte[] {0, 0, 0, 1, 7}), 1);
        ChannelStateHandle output = new ChannelStateHandle(0, new FileStateHandle("/tmp/chk-" + id + "/c-uuid", 70_004), 70_000);
        OperatorState stateless = new OperatorState("sink", 1, 128, Map.of(0,
                new OperatorSubtaskState(List.of(), List.of(), List.of(input), List.of(output))));
        return new CheckpointMetadata(id, job, 1_700_000_000_123L, true,
                Map.of("source", source, "keyed-count\u00e9", counter, "sink", stateless),
                List.of(new MasterState("split-enumerator", new byte[] {4, 2}), new MasterState("empty-hook", new byte[0])));
    }

    /** Renders metadata with array contents, since the records compare arrays by reference. */
    static String describe(CheckpointMetadata m) {
        StringBuilder sb = new StringBuilder();
        sb.append(m.checkpointId()).append(' ').append(m.jobName()).append(' ').append(m.timestamp()).append(' ')
                .append(m.isFinal()).append('\n');
        m.masterStates().stream().sorted(java.util.Comparator.comparing(MasterState::hookId))
                .forEach(ms -> sb.append("master ").append(ms.hookId()).append(' ').append(Arrays.toString(ms.bytes())).append('\n'));
        for (OperatorState op : new TreeMap<>(m.operatorStates()).values()) {
            sb.append(op.operatorId()).append(' ').append(op.parallelism()).append(' ').append(op.maxParallelism()).append('\n');
            new TreeMap<>(op.subtaskStates()).forEach((i, s) -> {
                sb.append("  ").append(i).append('\n');
                for (OperatorStateHandle h : s.operatorState()) {
                    sb.append("    op ").append(h.stateOffsets().entrySet().stream()
                            .sorted(Map.Entry.comparingByKey())
                            .map(e -> e.getKey() + "=" + Arrays.toString(e.getValue()))
                            .collect(Collectors.joining(","))).append(' ').append(describe(h.delegate())).append('\n');
                }
                for (KeyGroupsStateHandle h : s.keyedState()) {
                    sb.append("    keyed ").append(h.range()).append(Arrays.toString(h.offsets())).append(' ')
                            .append(describe(h.delegate())).append('\n');
                    for (io.weir.core.checkpoint.SharedFileHandle f : h.sharedFiles()) {
                        sb.append("      shared ").append(f.name()).append(" of checkpoint ").append(f.uploadedBy()).append(' ')
                                .append(describe(f.handle())).append('\n');
                    }
                }
                for (ChannelStateHandle h : s.inputChannelState()) {
                    sb.append("    input ").append(h.channel()).append(' ').append(h.dataBytes()).append(' ').append(describe(h.delegate())).append('\n');
                }
                for (ChannelStateHandle h : s.resultSubpartitionState()) {
                    sb.append("    output ").append(h.channel()).append(' ').append(h.dataBytes()).append(' ').append(describe(h.delegate())).append('\n');
                }
            });
        }
        return sb.toString();
    }

    private static String describe(StreamStateHandle h) {
        String crc = h.crc32().isPresent() ? String.format(" crc32=%08X", h.crc32().getAsInt()) : "";
        return (h instanceof FileStateHandle f ? "file " + f.path() + " " + f.size() + " bytes"
                : "inline" + Arrays.toString(((ByteStreamStateHandle) h).data())) + crc;
    }

    @Test
    void roundTripPreservesEveryKindOfHandle() throws Exception {
        CheckpointMetadata m = sampleMetadata("job", 42);
        CheckpointMetadata back = serializer.deserialize(serializer.serialize(m), "mem");
        assertThat(describe(back)).isEqualTo(describe(m));
        assertThat(describe(back)).contains("inline[1, 2, 3, 4, 5]", "offsets=[8, 20, 31]", "empty=[]",
                "file /tmp/chk-42/b-uuid 999999999999 bytes",
                "input 1 1 inline[0, 0, 0, 1, 7]", "output 0 70000 file /tmp/chk-42/c-uuid 70004 bytes",
                "master split-enumerator [4, 2]", "master empty-hook []");
        assertThat(back.stateSize()).isEqualTo(m.stateSize());
        assertThat(back.masterStates()).containsExactlyInAnyOrderElementsOf(m.masterStates());
    }

    @Test
    void roundTripPreservesTheKeyHashVersion() throws Exception {
        for (io.weir.core.state.KeyHashVersion v : io.weir.core.state.KeyHashVersion.values()) {
            CheckpointMetadata m = sampleMetadata("job", 42);
            CheckpointMetadata versioned = new CheckpointMetadata(m.checkpointId(), m.jobName(), m.timestamp(), m.isFinal(),
                    m.operatorStates(), m.masterStates(), v);
            assertThat(serializer.deserialize(serializer.serialize(versioned), "mem").keyHashVersion()).isEqualTo(v);
        }
    }

    // Reading version 2 is covered by MetadataGoldenFilesTest (v2.metadata): the current writer (version 6, with
    // a shared-file count per keyed handle) can no longer produce a version 3 body to cut a version 2 one from.

    @Test
    void sameMetadataGivesSameBytes() {
        assertThat(serializer.serialize(sampleMetadata("job", 1))).isEqualTo(serializer.serialize(sampleMetadata("job", 1)));
    }

    @Test
    void truncatedFileIsReportedAsTruncated() {
        byte[] bytes = serializer.serialize(sampleMetadata("job", 1));
        byte[] cut = Arrays.copyOf(bytes, bytes.length - 10);
        assertThatThrownBy(() -> serializer.deserialize(cut, "/x/_metadata"))
                .hasMessageContaining("/x/_metadata").hasMessageContaining("truncated")
                .hasMessageContaining("cannot be used");
        assertThatThrownBy(() -> serializer.deserialize(Arrays.copyOf(bytes, 6), "/x/_metadata"))
                .hasMessageContaining("truncated");
    }

    @Test
    void flippedByteIsCaughtByCrc() {
        byte[] bytes = serializer.serialize(sampleMetadata("job", 1));
        bytes[bytes.length / 2] ^= 0x10;
        assertThatThrownBy(() -> serializer.deserialize(bytes, "/x/_metadata"))
                .hasMessageContaining("/x/_metadata").hasMessageContaining("CRC32 mismatch")
                .hasMessageContaining("cannot be used");
    }

    @Test
    void wrongMagicIsRejected() {
        byte[] bytes = serializer.serialize(sampleMetadata("job", 1));
        bytes[0] = 'X';
        assertThatThrownBy(() -> serializer.deserialize(bytes, "/x/_metadata"))
                .hasMessageContaining("not a Weir checkpoint metadata file").hasMessageContaining("cannot be used");
    }

    @Test
    void futureVersionIsRejectedNamingTheVersion() {
        byte[] bytes = serializer.serialize(sampleMetadata("job", 1));
        ByteBuffer.wrap(bytes).putInt(4, MetadataSerializer.CURRENT_VERSION + 1);
        assertThatThrownBy(() -> serializer.deserialize(bytes, "/x/_metadata"))
                .hasMessageContaining("format version " + (MetadataSerializer.CURRENT_VERSION + 1))
                .hasMessageContaining("newer").hasMessageContaining("cannot be used");
    }

    @Test
    void trailingGarbageIsRejected() {
        byte[] bytes = serializer.serialize(sampleMetadata("job", 1));
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 3);
        assertThatThrownBy(() -> serializer.deserialize(longer, "/x/_metadata")).hasMessageContaining("3 unexpected bytes");
    }
}
