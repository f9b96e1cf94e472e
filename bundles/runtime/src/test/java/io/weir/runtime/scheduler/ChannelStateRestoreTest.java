package io.weir.runtime.scheduler;

import io.weir.core.checkpoint.ChannelStateHandle;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.runtime.io.network.BufferPool;
import io.weir.runtime.io.network.NetworkBuffer;
import io.weir.runtime.io.network.PipelinedSubpartition;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Replaying persisted in-flight data into a job with the same parallelism (PROTOCOL.md §6). */
class ChannelStateRestoreTest {

    private static ChannelStateHandle handle(int channel, int... markers) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        for (int m : markers) {
            out.writeInt(1);
            out.writeByte(m);
        }
        return new ChannelStateHandle(channel, new StreamStateHandle.ByteStreamStateHandle(bytes.toByteArray()), markers.length);
    }

    private static List<Integer> drain(PipelinedSubpartition sp) {
        List<Integer> got = new ArrayList<>();
        Object o;
        while ((o = sp.poll()) != null) {
            NetworkBuffer b = (NetworkBuffer) o;
            got.add((int) b.segment()[0]);
            b.recycle();
        }
        return got;
    }

    @Test
    void consumerInputStateIsReplayedBeforeProducerOutputStateOnEachLink() throws Exception {
        PipelinedSubpartition toConsumer0 = new PipelinedSubpartition(10);
        PipelinedSubpartition toConsumer1 = new PipelinedSubpartition(10);
        BufferPool producerPool = new BufferPool(64, 4);
        ChannelStateRestore restore = new ChannelStateRestore();
        // producer subtask: its output state overtaken on subpartition 1 only
        restore.addOutputs(List.of(toConsumer0, toConsumer1), producerPool,
                new OperatorSubtaskState(List.of(), List.of(), List.of(), List.of(handle(1, 7, 8))));
        // consumer 1: read 5 and 6 from this channel after its snapshot
        restore.addInputs(List.of(toConsumer1), new OperatorSubtaskState(List.of(), List.of(), List.of(handle(0, 5, 6)), List.of()));

        restore.replay();

        assertThat(drain(toConsumer1)).containsExactly(5, 6, 7, 8);
        assertThat(drain(toConsumer0)).isEmpty();
        assertThat(producerPool.isAvailable()).as("replayed buffers are recycled back").isTrue();
    }

    @Test
    void channelStateOfAnotherParallelismIsRejectedWithAClearMessage() throws Exception {
        ChannelStateRestore restore = new ChannelStateRestore();
        assertThatThrownBy(() -> restore.addInputs(List.of(new PipelinedSubpartition(1)),
                new OperatorSubtaskState(List.of(), List.of(), List.of(handle(3, 1)), List.of())))
                .hasMessageContaining("channel 3").hasMessageContaining("parallelism");
    }
}
