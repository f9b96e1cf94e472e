package io.weir.runtime.io.network;

import io.weir.core.checkpoint.CheckpointAlignment;
import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.CheckpointOptions;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** Barriers overtaking in-flight data on a link (PROTOCOL.md §6) and the data they capture. */
class UnalignedChannelTest {
    private final BufferPool pool = new BufferPool(64, 16);

    private NetworkBuffer buffer(int marker) {
        NetworkBuffer b = pool.request();
        b.segment()[0] = (byte) marker;
        b.setSize(1);
        return b;
    }

    private static CheckpointBarrier barrier(long id, CheckpointAlignment alignment, long timeoutMs) {
        return new CheckpointBarrier(id, 0, new CheckpointOptions(alignment, timeoutMs, false));
    }

    private static List<Integer> markers(List<byte[]> buffers) {
        List<Integer> m = new ArrayList<>();
        buffers.forEach(b -> m.add((int) b[0]));
        return m;
    }

    @Test
    void unalignedBarrierOvertakesReceivedAndBacklogAndCapturesThemInOrder() {
        PipelinedSubpartition sp = new PipelinedSubpartition(2);
        for (int i = 1; i <= 5; i++) {
            sp.addBuffer(buffer(i)); // 1, 2 received (credit 2); 3, 4, 5 in the backlog
        }
        CompletableFuture<List<byte[]>> overtaken = sp.addBarrier(barrier(1, CheckpointAlignment.UNALIGNED, 0));

        assertThat(overtaken).isCompleted();
        assertThat(markers(overtaken.join())).containsExactly(1, 2, 3, 4, 5);
        assertThat(sp.poll()).isInstanceOf(CheckpointBarrier.class);
        assertThat(((NetworkBuffer) sp.poll()).segment()[0]).as("the overtaken data still flows after the barrier").isEqualTo((byte) 1);
    }

    @Test
    void unalignedBarrierIsAnnouncedAsPriorityAndTakenMidStream() {
        PipelinedSubpartition sp = new PipelinedSubpartition(2);
        InputGate gate = new InputGate(List.of(sp));
        sp.addBuffer(buffer(1));
        assertThat(gate.hasPriorityEvent()).isFalse();
        sp.addBarrier(barrier(3, CheckpointAlignment.UNALIGNED, 0));

        assertThat(gate.hasPriorityEvent()).isTrue();
        InputGate.ChannelEntry e = gate.pollPriorityEvent();
        assertThat(e.entry()).isInstanceOf(CheckpointBarrier.class);
        assertThat(gate.hasPriorityEvent()).isFalse();
        assertThat(gate.pollNext().entry()).isInstanceOf(NetworkBuffer.class);
    }

    @Test
    void alignedWithTimeoutBarrierTakenNormallyOvertakesNothing() {
        PipelinedSubpartition sp = new PipelinedSubpartition(5);
        sp.addBuffer(buffer(1));
        CompletableFuture<List<byte[]>> overtaken = sp.addBarrier(barrier(2, CheckpointAlignment.ALIGNED_WITH_TIMEOUT, 100));
        assertThat(overtaken).isNotDone();
        sp.poll();
        assertThat(sp.poll()).isInstanceOf(CheckpointBarrier.class);

        assertThat(overtaken).isCompleted();
        assertThat(overtaken.join()).isEmpty();
        sp.convertToPriority(2); // too late: no-op
    }

    @Test
    void timedOutBarrierConvertsToUnalignedAndCapturesTheDataBeforeItOnly() {
        PipelinedSubpartition sp = new PipelinedSubpartition(1);
        sp.addBuffer(buffer(1)); // received
        sp.addBuffer(buffer(2)); // backlog
        CompletableFuture<List<byte[]>> overtaken = sp.addBarrier(barrier(4, CheckpointAlignment.ALIGNED_WITH_TIMEOUT, 100));
        sp.addBuffer(buffer(3)); // after the barrier

        sp.convertToPriority(4);

        assertThat(markers(overtaken.join())).containsExactly(1, 2);
        CheckpointBarrier b = (CheckpointBarrier) sp.poll();
        assertThat(b.options().isUnaligned()).isTrue();
        assertThat(b.checkpointId()).isEqualTo(4);
        NetworkBuffer first = (NetworkBuffer) sp.poll();
        assertThat(first.segment()[0]).isEqualTo((byte) 1);
        first.recycle();
        assertThat(((NetworkBuffer) sp.poll()).segment()[0]).isEqualTo((byte) 2);
    }

    @Test
    void debloaterAsksForBuffersHoldingTheTargetTimeOfThroughput() {
        BufferDebloater d = new BufferDebloater(200, 32 * 1024, 0);
        assertThat(d.update(1, 1_000_000_000L, 10)).as("no estimate yet").isEqualTo(32 * 1024);
        // 200 KB/s, 10 buffers in flight: 200 KB/s * 0.2 s / 10 = 4 KB, reached by halving from 32 KB
        long bytes = 1;
        long t = 1_000_000_000L;
        int[] sizes = new int[4];
        for (int i = 0; i < sizes.length; i++) {
            bytes += 200_000;
            t += 1_000_000_000L;
            sizes[i] = d.update(bytes, t, 10);
        }
        assertThat(sizes).containsExactly(16 * 1024, 8 * 1024, 4096, 4000);
        // a fast consumer gets full buffers back at once
        assertThat(d.update(bytes + 1_000_000_000L, t + 1_000_000_000L, 10)).isEqualTo(32 * 1024);
        // a stalled one never goes below the minimum
        BufferDebloater slow = new BufferDebloater(200, 32 * 1024, 0);
        slow.update(1, 1, 10);
        int size = 0;
        for (int i = 1; i <= 10; i++) {
            size = slow.update(1, 1 + i * 1_000_000_000L, 10);
        }
        assertThat(size).isEqualTo(BufferDebloater.MIN_BUFFER_SIZE);
    }

    @Test
    void writerFinishesBuffersAtTheConsumersDesiredSize() {
        PipelinedSubpartition sp = new PipelinedSubpartition(100);
        io.weir.api.Schema schema = io.weir.api.Schema.builder().field("v", io.weir.api.FieldType.LONG).build();
        RecordWriter w = new RecordWriter(List.of(sp), new BufferPool(1024, 100), ChannelSelector.forward(), new io.weir.api.RowSerializer(schema));
        sp.setDesiredBufferSize(40); // each row is 4 + 1 + 8 = 13 bytes: 3 rows per buffer
        for (long i = 0; i < 9; i++) {
            w.emit(new io.weir.api.Row(schema, i));
        }
        w.flushAll();
        int buffers = 0;
        Object o;
        while ((o = sp.poll()) != null) {
            assertThat(((NetworkBuffer) o).size()).isEqualTo(39);
            buffers++;
        }
        assertThat(buffers).isEqualTo(3);
    }
}
