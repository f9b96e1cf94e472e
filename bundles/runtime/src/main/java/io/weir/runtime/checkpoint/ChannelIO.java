package io.weir.runtime.checkpoint;

import io.weir.core.checkpoint.CheckpointBarrier;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A task's channels as its checkpoints use them: sending barriers and events downstream, and the
 * in-flight data an unaligned checkpoint persists (PROTOCOL.md §6). Task thread only; the returned
 * futures complete on any thread.
 */
public interface ChannelIO {
    /**
     * Sends the barrier on every output subpartition (an unaligned one overtakes queued data).
     *
     * @return per output subpartition, in the task's subpartition order, the data the barrier
     *         overtook (buffers' bytes); completes later for an aligned-with-timeout barrier
     */
    List<CompletableFuture<List<byte[]>>> broadcastBarrier(CheckpointBarrier barrier);

    /** Sends an event (cancel marker) on every output subpartition behind all data. */
    void broadcastEvent(Object event);

    /**
     * @return for an unaligned checkpoint, the input buffers read after the snapshot on channels whose
     *         barrier had not arrived and the bytes processed meanwhile, complete once every such
     *         channel's barrier arrived; {@link RecordedInput#NONE} for tasks without inputs
     */
    CompletableFuture<RecordedInput> inputChannelState(long checkpointId);
}
