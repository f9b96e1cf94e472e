package io.weir.runtime.scheduler;

import io.weir.core.checkpoint.ChannelStateHandle;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.runtime.checkpoint.ChannelStateWriter;
import io.weir.runtime.io.network.BufferPool;
import io.weir.runtime.io.network.PipelinedSubpartition;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Replays the in-flight data of an unaligned checkpoint into the new links before any task runs
 * (PROTOCOL.md §6): on each link first the consumer's input channel state (buffers it read after
 * its snapshot, before that channel's barrier), then the producer's output state (the buffers its
 * barrier overtook), which is the order in which the records were emitted. Restores with the same
 * parallelism only. Job master thread only.
 */
final class ChannelStateRestore {
    private final Map<PipelinedSubpartition, List<byte[]>> input = new LinkedHashMap<>();
    private final Map<PipelinedSubpartition, List<byte[]>> output = new LinkedHashMap<>();
    private final Map<PipelinedSubpartition, BufferPool> pools = new LinkedHashMap<>();

    /** Records the consumer side of a task: {@code channels} in gate order. */
    void addInputs(List<PipelinedSubpartition> channels, OperatorSubtaskState headState) {
        if (headState == null) {
            return;
        }
        for (ChannelStateHandle h : headState.inputChannelState()) {
            input.put(link(channels, h), read(h));
        }
    }

    /** Records the producer side of a task: {@code subpartitions} in writer order. */
    void addOutputs(List<PipelinedSubpartition> subpartitions, BufferPool pool, OperatorSubtaskState tailState) {
        for (PipelinedSubpartition sp : subpartitions) {
            pools.put(sp, pool);
        }
        if (tailState == null) {
            return;
        }
        for (ChannelStateHandle h : tailState.resultSubpartitionState()) {
            output.put(link(subpartitions, h), read(h));
        }
    }

    /** Queues the recorded buffers into their links. */
    void replay() {
        List<PipelinedSubpartition> links = new ArrayList<>(input.keySet());
        output.keySet().stream().filter(sp -> !input.containsKey(sp)).forEach(links::add);
        for (PipelinedSubpartition sp : links) {
            BufferPool pool = pools.get(sp);
            for (byte[] b : input.getOrDefault(sp, List.of())) {
                sp.addRestoredBuffer(b, pool);
            }
            for (byte[] b : output.getOrDefault(sp, List.of())) {
                sp.addRestoredBuffer(b, pool);
            }
        }
    }

    private static PipelinedSubpartition link(List<PipelinedSubpartition> channels, ChannelStateHandle h) {
        if (h.channel() >= channels.size()) {
            throw new IllegalStateException("checkpointed in-flight data names channel " + h.channel() + " but the task has "
                    + channels.size() + "; restoring unaligned checkpoints needs the parallelism they were taken with");
        }
        return channels.get(h.channel());
    }

    private static List<byte[]> read(ChannelStateHandle h) {
        try {
            return ChannelStateWriter.read(h);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
