package io.weir.runtime.scheduler;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.RowSerializer;
import io.weir.api.Schema;
import io.weir.core.checkpoint.ChannelStateHandle;
import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.OperatorState;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.config.Configuration;
import io.weir.core.job.JobEdge;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobVertex;
import io.weir.core.job.Partitioning;
import io.weir.core.job.VertexKind;
import io.weir.core.state.KeyGroupAssignment;
import io.weir.core.state.KeyHashVersion;
import io.weir.runtime.io.network.BufferPool;
import io.weir.runtime.io.network.NetworkBuffer;
import io.weir.runtime.io.network.PipelinedSubpartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.DataInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Replaying persisted in-flight data (PROTOCOL.md §6): unchanged links get their buffers back as
 * they were; after a parallelism change every record lands exactly once in a new link, by key on
 * hash edges. Expected consumers are computed here from the key-group contract, not by the code under test.
 */
class ChannelStateRestoreTest {
    private static final int MAX_PARALLELISM = 128;
    private static final Schema SCHEMA = Schema.builder().field("key", FieldType.LONG).field("seq", FieldType.LONG).build();
    private static final Schema KEY = Schema.builder().field("key", FieldType.LONG).build();
    private static final RowSerializer ROWS = new RowSerializer(SCHEMA);

    private static JobGraph job(int producers, int consumers, Partitioning partitioning) {
        JobVertex p = new JobVertex("p", VertexKind.OPERATOR, "x", producers, null, SCHEMA, SCHEMA, false);
        JobVertex c = new JobVertex("c", VertexKind.OPERATOR, "x", consumers, null, SCHEMA, SCHEMA, partitioning == Partitioning.HASH);
        JobEdge e = new JobEdge("p", "c", partitioning, partitioning == Partitioning.HASH ? List.of("key") : List.of());
        return new JobGraph("j", Configuration.empty(), List.of(p, c), List.of(e));
    }

    /** A buffer of rows (key, seq) framed as on the wire: per row a 4-byte length and its bytes. */
    private static byte[] buffer(long... keysAndSeqs) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        for (int i = 0; i < keysAndSeqs.length; i += 2) {
            ByteArrayOutputStream row = new ByteArrayOutputStream();
            ROWS.serialize(new Row(SCHEMA, keysAndSeqs[i], keysAndSeqs[i + 1]), new DataOutputStream(row));
            out.writeInt(row.size());
            row.writeTo(out);
        }
        return bytes.toByteArray();
    }

    /** A channel-state handle holding the given buffers. */
    private static ChannelStateHandle handle(int channel, byte[]... buffers) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        long data = 0;
        for (byte[] b : buffers) {
            out.writeInt(b.length);
            out.write(b);
            data += b.length;
        }
        return new ChannelStateHandle(channel, new StreamStateHandle.ByteStreamStateHandle(bytes.toByteArray()), data);
    }

    private static OperatorSubtaskState input(ChannelStateHandle... handles) {
        return new OperatorSubtaskState(List.of(), List.of(), List.of(handles), List.of());
    }

    private static OperatorSubtaskState output(ChannelStateHandle... handles) {
        return new OperatorSubtaskState(List.of(), List.of(), List.of(), List.of(handles));
    }

    private static CheckpointMetadata checkpoint(int producers, Map<Integer, OperatorSubtaskState> producerStates, int consumers,
            Map<Integer, OperatorSubtaskState> consumerStates) {
        return checkpoint(KeyHashVersion.LEGACY, producers, producerStates, consumers, consumerStates);
    }

    /** A checkpoint of a job that placed its keys with {@code version}. */
    private static CheckpointMetadata checkpoint(KeyHashVersion version, int producers, Map<Integer, OperatorSubtaskState> producerStates,
            int consumers, Map<Integer, OperatorSubtaskState> consumerStates) {
        return new CheckpointMetadata(7, "j", 0, false, Map.of(
                "p", new OperatorState("p", producers, MAX_PARALLELISM, producerStates),
                "c", new OperatorState("c", consumers, MAX_PARALLELISM, consumerStates)), List.of(), version);
    }

    /** @return the (key, seq) pairs of the rows in {@code buffers}, in order */
    private static List<List<Long>> rows(List<byte[]> buffers) throws IOException {
        List<List<Long>> rows = new ArrayList<>();
        for (byte[] b : buffers) {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(b));
            while (in.available() > 0) {
                byte[] row = new byte[in.readInt()];
                in.readFully(row);
                Row r = ROWS.deserialize(new DataInputStream(new ByteArrayInputStream(row)));
                rows.add(List.of(r.getLong(0), r.getLong(1)));
            }
        }
        return rows;
    }

    /** The consumer owning {@code key} when keys are placed with {@code version}, from the key-group contract (PROTOCOL.md §7). */
    private static int owner(long key, int consumers, KeyHashVersion version) {
        int keyGroup = version.keyGroupFor(new Row(KEY, key), MAX_PARALLELISM);
        for (int c = 0; c < consumers; c++) {
            if (KeyGroupAssignment.rangeForSubtask(MAX_PARALLELISM, consumers, c).contains(keyGroup)) {
                return c;
            }
        }
        throw new AssertionError("no owner of key group " + keyGroup);
    }

    private static List<Integer> drain(PipelinedSubpartition sp) {
        List<Integer> sizes = new ArrayList<>();
        Object o;
        while ((o = sp.poll()) != null) {
            NetworkBuffer b = (NetworkBuffer) o;
            sizes.add(b.size());
            b.recycle();
        }
        return sizes;
    }

    @Test
    void unchangedLinksReplayConsumerInputStateBeforeProducerOutputState() throws Exception {
        JobGraph job = job(1, 2, Partitioning.REBALANCE);
        byte[] consumed = buffer(1, 5, 1, 6);
        byte[] overtaken = buffer(2, 7);
        // producer 0 overtook a buffer on subpartition 1; consumer 1 read a buffer of its channel 0 after its snapshot
        CheckpointMetadata cp = checkpoint(1, Map.of(0, output(handle(1, overtaken))), 2, Map.of(1, input(handle(0, consumed))));
        PipelinedSubpartition toConsumer0 = new PipelinedSubpartition(10);
        PipelinedSubpartition toConsumer1 = new PipelinedSubpartition(10);
        BufferPool producerPool = new BufferPool(64, 4);

        ChannelStateRestore restore = new ChannelStateRestore(Optional.of(cp), job, job.edges(), MAX_PARALLELISM, 64);
        restore.addPool(List.of(toConsumer0, toConsumer1), producerPool);
        restore.replay(Map.of(job.edges().get(0), new PipelinedSubpartition[][] {{toConsumer0, toConsumer1}}));

        assertThat(drain(toConsumer1)).containsExactly(consumed.length, overtaken.length);
        assertThat(drain(toConsumer0)).isEmpty();
        assertThat(producerPool.isAvailable()).as("replayed buffers are recycled back").isTrue();
    }

    /** Keys 0..39 of the two versions' placements differ in owner: re-partitioning must use the checkpoint's. */
    @ParameterizedTest
    @EnumSource(KeyHashVersion.class)
    void hashEdgeScaledUpSendsEveryInflightRecordToTheNewOwnerOfItsKeyOnce(KeyHashVersion version) throws Exception {
        JobGraph job = job(2, 4, Partitioning.HASH);
        Map<Integer, List<List<Long>>> sent = new HashMap<>();
        // old: 2 producers -> 2 consumers; in flight: keys 0..39, seq numbering each record
        Map<Integer, OperatorSubtaskState> producers = new HashMap<>();
        Map<Integer, OperatorSubtaskState> consumers = new HashMap<>();
        long seq = 0;
        List<ChannelStateHandle>[] inputs = new List[] {new ArrayList<>(), new ArrayList<>()};
        for (int s = 0; s < 2; s++) {
            List<ChannelStateHandle> outs = new ArrayList<>();
            for (int j = 0; j < 2; j++) {
                List<Long> in = new ArrayList<>();
                List<Long> out = new ArrayList<>();
                for (long key = 0; key < 40; key++) {
                    if (owner(key, 2, version) == j) {
                        in.add(key);
                        in.add(seq++);
                        out.add(key);
                        out.add(seq++);
                    }
                }
                inputs[j].add(handle(s, buffer(in.stream().mapToLong(Long::longValue).toArray())));
                outs.add(handle(j, buffer(out.stream().mapToLong(Long::longValue).toArray())));
            }
            producers.put(s, new OperatorSubtaskState(List.of(), List.of(), List.of(), outs));
        }
        consumers.put(0, new OperatorSubtaskState(List.of(), List.of(), inputs[0], List.of()));
        consumers.put(1, new OperatorSubtaskState(List.of(), List.of(), inputs[1], List.of()));
        long total = seq;

        ChannelStateRestore restore = new ChannelStateRestore(Optional.of(checkpoint(version, 2, producers, 2, consumers)), job, job.edges(),
                MAX_PARALLELISM, 64);

        List<Long> seen = new ArrayList<>();
        for (int s = 0; s < 2; s++) {
            for (int c = 0; c < 4; c++) {
                List<byte[]> buffers = restore.assigned(job.edges().get(0), s, c);
                assertThat(buffers).allSatisfy(b -> assertThat(b.length).isLessThanOrEqualTo(64));
                for (List<Long> row : rows(buffers)) {
                    assertThat(owner(row.get(0), 4, version)).as("consumer of key %s", row.get(0)).isEqualTo(c);
                    seen.add(row.get(1));
                    sent.computeIfAbsent(s, k -> new ArrayList<>()).add(row);
                }
            }
        }
        assertThat(seen).as("every in-flight record exactly once").containsExactlyInAnyOrderElementsOf(
                java.util.stream.LongStream.range(0, total).boxed().toList());
        // per old producer, a key's records keep their order (input state before output state)
        for (List<List<Long>> rows : sent.values()) {
            Map<Long, Long> lastSeq = new HashMap<>();
            for (List<Long> row : rows) {
                Long before = lastSeq.put(row.get(0), row.get(1));
                assertThat(before == null || before < row.get(1)).as("order of key %s", row.get(0)).isTrue();
            }
        }
    }

    @Test
    void hashEdgeScaledDownOnBothEndsMovesOldLinksIntoTheRemainingOnes() throws Exception {
        JobGraph job = job(1, 1, Partitioning.HASH);
        // old: 2 producers -> 3 consumers; producer 1 overtook data for consumer 2, consumer 0 read data of producer 1
        CheckpointMetadata cp = checkpoint(2, Map.of(1, output(handle(2, buffer(5, 0, 6, 1)))),
                3, Map.of(0, input(handle(1, buffer(7, 2)))));

        ChannelStateRestore restore = new ChannelStateRestore(Optional.of(cp), job, job.edges(), MAX_PARALLELISM, 64);

        assertThat(rows(restore.assigned(job.edges().get(0), 0, 0)))
                .containsExactlyInAnyOrder(List.of(5L, 0L), List.of(6L, 1L), List.of(7L, 2L));
    }

    @Test
    void rebalanceEdgeScaledUpDealsRecordsRoundRobinOverTheNewConsumers() throws Exception {
        JobGraph job = job(1, 3, Partitioning.REBALANCE);
        CheckpointMetadata cp = checkpoint(1, Map.of(0, output(handle(0, buffer(1, 0, 1, 1, 1, 2)), handle(1, buffer(1, 3, 1, 4, 1, 5)))),
                2, Map.of());

        ChannelStateRestore restore = new ChannelStateRestore(Optional.of(cp), job, job.edges(), MAX_PARALLELISM, 64);

        List<Long> all = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            List<List<Long>> rows = rows(restore.assigned(job.edges().get(0), 0, c));
            assertThat(rows).as("consumer %d gets an even share", c).hasSize(2);
            rows.forEach(r -> all.add(r.get(1)));
        }
        assertThat(all).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L, 5L);
    }

    @Test
    void rebalanceEdgeWhoseProducerScaledDownKeepsEachRecordWithItsConsumer() throws Exception {
        JobGraph job = job(1, 2, Partitioning.REBALANCE);
        // old: 2 producers -> 2 consumers; producer 1 overtook data for both consumers
        CheckpointMetadata cp = checkpoint(2, Map.of(1, output(handle(0, buffer(1, 0)), handle(1, buffer(1, 1, 1, 2)))),
                2, Map.of());

        ChannelStateRestore restore = new ChannelStateRestore(Optional.of(cp), job, job.edges(), MAX_PARALLELISM, 64);

        assertThat(rows(restore.assigned(job.edges().get(0), 0, 0))).containsExactly(List.of(1L, 0L));
        assertThat(rows(restore.assigned(job.edges().get(0), 0, 1))).containsExactly(List.of(1L, 1L), List.of(1L, 2L));
    }

    @Test
    void broadcastEdgeWhoseConsumerChangedParallelismIsRefusedNamingTheEdge() throws Exception {
        JobGraph job = job(1, 3, Partitioning.BROADCAST);
        CheckpointMetadata cp = checkpoint(1, Map.of(0, output(handle(1, buffer(1, 0)))), 2, Map.of());

        assertThatThrownBy(() -> new ChannelStateRestore(Optional.of(cp), job, job.edges(), MAX_PARALLELISM, 64))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("broadcast edge p -> c").hasMessageContaining("restore with parallelism 2 for 'c'");
    }

    @Test
    void channelStateOfAChannelTheJobDoesNotHaveIsRefusedNotDropped() throws Exception {
        JobGraph job = job(1, 1, Partitioning.HASH);
        CheckpointMetadata cp = checkpoint(1, Map.of(), 1, Map.of(0, input(handle(3, buffer(1, 0)))));

        assertThatThrownBy(() -> new ChannelStateRestore(Optional.of(cp), job, job.edges(), MAX_PARALLELISM, 64))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("input channel 3 of operator 'c' subtask 0");
    }
}
