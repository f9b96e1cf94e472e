package io.weir.runtime.io.network;

import io.weir.api.Row;
import io.weir.api.RowSerializer;
import io.weir.api.Schema;
import io.weir.api.FieldType;
import io.weir.core.checkpoint.CheckpointAlignment;
import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.CheckpointOptions;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class PipelinedSubpartitionTest {
    private static final Schema SCHEMA = Schema.builder().field("k", FieldType.LONG).field("s", FieldType.STRING).build();

    @Test
    void buffersBeyondCreditStayInTheBacklogUntilARecycleReturnsCredit() {
        BufferPool pool = new BufferPool(64, 10);
        PipelinedSubpartition sp = new PipelinedSubpartition(2);
        for (int i = 0; i < 5; i++) {
            NetworkBuffer b = pool.request();
            b.setSize(8);
            sp.addBuffer(b);
        }
        assertThat(sp.backlogSize()).isEqualTo(3);
        NetworkBuffer first = (NetworkBuffer) sp.poll();
        NetworkBuffer second = (NetworkBuffer) sp.poll();
        assertThat(sp.poll()).as("no credit left").isNull();
        first.recycle();
        assertThat(sp.backlogSize()).isEqualTo(2);
        assertThat(sp.poll()).isInstanceOf(NetworkBuffer.class);
        second.recycle();
        assertThat(sp.backlogSize()).isEqualTo(1);
    }

    @Test
    void alignedBarrierBlocksTheLinkSoLaterDataStaysUpstreamUntilResumed() {
        BufferPool pool = new BufferPool(64, 10);
        PipelinedSubpartition sp = new PipelinedSubpartition(5);
        CheckpointBarrier barrier = new CheckpointBarrier(1, 0, CheckpointOptions.aligned());
        sp.addEvent(barrier);
        NetworkBuffer after = pool.request();
        after.setSize(4);
        sp.addBuffer(after);
        assertThat(sp.poll()).isEqualTo(barrier);
        assertThat(sp.poll()).as("data behind an aligned barrier is held upstream").isNull();
        assertThat(sp.backlogSize()).isEqualTo(1);
        sp.resume();
        assertThat(sp.poll()).isSameAs(after);
    }

    @Test
    void atLeastOnceBarrierDoesNotBlock() {
        BufferPool pool = new BufferPool(64, 10);
        PipelinedSubpartition sp = new PipelinedSubpartition(5);
        sp.addEvent(new CheckpointBarrier(1, 0, new CheckpointOptions(CheckpointAlignment.AT_LEAST_ONCE, 0, false)));
        NetworkBuffer after = pool.request();
        after.setSize(4);
        sp.addBuffer(after);
        sp.poll();
        assertThat(sp.poll()).isSameAs(after);
    }

    @Test
    void exhaustedPoolMakesTheWriterUnavailableUntilTheConsumerRecycles() {
        BufferPool pool = new BufferPool(64, 2);
        PipelinedSubpartition sp = new PipelinedSubpartition(1);
        RecordWriter writer = new RecordWriter(List.of(sp), pool, ChannelSelector.forward(), new RowSerializer(SCHEMA));
        AtomicInteger wakeUps = new AtomicInteger();
        pool.addAvailabilityListener(wakeUps::incrementAndGet);
        int emitted = 0;
        while (writer.isAvailable()) {
            writer.emit(new Row(SCHEMA, (long) emitted, "a string of some length to fill buffers"));
            emitted++;
        }
        assertThat(emitted).as("rows emitted before backpressure").isPositive();
        writer.flushAll();
        NetworkBuffer b = (NetworkBuffer) sp.poll();
        b.recycle();
        assertThat(writer.isAvailable()).isTrue();
        assertThat(wakeUps.get()).isEqualTo(1);
    }

    @Test
    void rowsRoundTripThroughWriterGateAndDeserializerInOrder() throws Exception {
        BufferPool pool = new BufferPool(128, 4);
        PipelinedSubpartition sp = new PipelinedSubpartition(2);
        AtomicInteger signals = new AtomicInteger();
        InputGate gate = new InputGate(List.of(sp));
        gate.setDataAvailableListener(signals::incrementAndGet);
        RowSerializer serializer = new RowSerializer(SCHEMA);
        RecordWriter writer = new RecordWriter(List.of(sp), pool, ChannelSelector.forward(), serializer);
        RecordDeserializer deserializer = new RecordDeserializer();
        List<Row> got = new ArrayList<>();
        int next = 0;
        while (got.size() < 200) {
            while (next < 200 && writer.isAvailable()) {
                writer.emit(new Row(SCHEMA, (long) next, "row-" + next));
                next++;
            }
            writer.flushAll();
            InputGate.ChannelEntry e;
            while ((e = gate.pollNext()) != null) {
                deserializer.setBuffer((NetworkBuffer) e.entry(), e.channel());
                while (deserializer.hasBuffer()) {
                    got.add(deserializer.next(serializer));
                }
            }
        }
        assertThat(got).extracting(r -> r.getLong(0)).containsExactlyElementsOf(
                java.util.stream.LongStream.range(0, 200).boxed().toList());
        assertThat(signals.get()).isPositive();
        assertThat(pool.inUse()).isZero();
    }
}
