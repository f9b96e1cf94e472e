package io.weir.runtime.checkpoint;

import io.weir.core.barrier.BarrierAlignment;
import io.weir.core.checkpoint.CancelCheckpointMarker;
import io.weir.core.checkpoint.ChannelStateHandle;
import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.CheckpointException;
import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.OperatorStateHandle;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.checkpoint.TaskStateSnapshot;
import io.weir.core.coordination.CheckpointResponder;
import io.weir.core.state.AsyncSnapshot;
import io.weir.core.storage.CheckpointStorage;
import io.weir.core.storage.CheckpointStreamFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.CompletableFuture;

/**
 * The task side of a checkpoint (PROTOCOL.md §3): runs {@code checkpointState} on the task thread
 * and the asynchronous part on the AsyncOperations pool, then acknowledges with state handles or
 * declines.
 *
 * <p>{@link #checkpointState}, {@link #abortCheckpoint}, {@link #notifyCheckpointComplete} and
 * {@link #notifyCheckpointAborted}: task thread only. The async part runs on a pool thread and
 * touches only what the sync part handed it.
 */
public final class SubtaskCheckpointCoordinator {
    private static final Logger LOG = LoggerFactory.getLogger(SubtaskCheckpointCoordinator.class);
    private static final int MAX_REMEMBERED_ABORTS = 64;

    private final String jobName;
    private final TaskId taskId;
    private final List<SnapshotParticipant> participants;
    private final PreBarrierHook preBarrier;
    private final ChannelIO channels;
    private final CheckpointStorage storage;
    private final CheckpointResponder responder;
    private final Executor asyncOperations;
    /** Task thread only: checkpoints aborted before their barrier arrived (step 0). */
    private final LinkedHashSet<Long> abortedBeforeBarrier = new LinkedHashSet<>();
    /** Task thread only. */
    private long lastCheckpointId;

    /** Emits buffered data of every operator before the barrier (step 1). */
    @FunctionalInterface
    public interface PreBarrierHook {
        /** Calls {@code prepareSnapshotPreBarrier} on every operator, head to tail. */
        void prepareSnapshotPreBarrier(long checkpointId) throws Exception;
    }

    /**
     * @param jobName job, for logs
     * @param taskId this task
     * @param participants the chain's operators, head to tail (a source reader first)
     * @param preBarrier step 1
     * @param channels barriers, events and in-flight data of the task's channels
     * @param storage checkpoint storage
     * @param responder where acks and declines go
     * @param asyncOperations the AsyncOperations pool
     */
    public SubtaskCheckpointCoordinator(String jobName, TaskId taskId, List<SnapshotParticipant> participants,
            PreBarrierHook preBarrier, ChannelIO channels, CheckpointStorage storage,
            CheckpointResponder responder, Executor asyncOperations) {
        this.jobName = jobName;
        this.taskId = taskId;
        this.participants = List.copyOf(participants);
        this.preBarrier = preBarrier;
        this.channels = channels;
        this.storage = storage;
        this.responder = responder;
        this.asyncOperations = asyncOperations;
    }

    /**
     * Takes checkpoint {@code barrier.checkpointId()} (PROTOCOL.md §3 steps 0–5): prepare operators,
     * broadcast the barrier downstream, snapshot synchronously, hand the rest to the async pool.
     *
     * @param barrier the barrier
     * @param alignment timings measured at this task's inputs (sources: the trigger's start delay)
     */
    public void checkpointState(CheckpointBarrier barrier, BarrierAlignment alignment) {
        long id = barrier.checkpointId();
        // step 0
        lastCheckpointId = Math.max(lastCheckpointId, id);
        if (abortedBeforeBarrier.remove(id)) {
            LOG.info("Checkpoint {} of job {} was aborted before task {} reached it; forwarding a cancel marker", id, jobName, taskId);
            channels.broadcastEvent(new CancelCheckpointMarker(id));
            return;
        }
        long syncStart = System.nanoTime();
        List<PendingSnapshot> pending = new ArrayList<>(participants.size());
        boolean barrierSent = false;
        List<CompletableFuture<List<byte[]>>> outputState;
        CompletableFuture<RecordedInput> inputState;
        try {
            // step 1
            preBarrier.prepareSnapshotPreBarrier(id);
            // step 2: the barrier goes out before the snapshot so downstream overlaps with us
            outputState = channels.broadcastBarrier(barrier);
            barrierSent = true;
            // step 3 (the alignment timer) is the barrier handler's; step 4: in-flight input data
            inputState = barrier.options().isUnaligned() ? channels.inputChannelState(id)
                    : CompletableFuture.completedFuture(RecordedInput.NONE);
            // step 5
            CheckpointStreamFactory streams = storage.resolveCheckpoint(id);
            for (SnapshotParticipant p : participants) {
                p.userSnapshot().snapshotState(id);
                AsyncSnapshot<OperatorStateHandle> op = p.operatorState().snapshot(id, streams);
                AsyncSnapshot<KeyGroupsStateHandle> keyed = p.keyedState() == null ? null : p.keyedState().snapshot(id, streams);
                pending.add(new PendingSnapshot(p.operatorId(), op, keyed));
            }
        } catch (Exception e) {
            LOG.warn("Task {} of job {} failed the synchronous part of checkpoint {}", taskId, jobName, id, e);
            discard(pending);
            responder.declineCheckpoint(taskId, id, CheckpointFailureReason.CHECKPOINT_DECLINED, e);
            if (!barrierSent) {
                // downstream would otherwise wait for this barrier until a later one subsumes it
                channels.broadcastEvent(new CancelCheckpointMarker(id));
            }
            return;
        }
        long syncMs = (System.nanoTime() - syncStart) / 1_000_000;
        long asyncStart = System.nanoTime();
        // the async part starts once the in-flight data is known (at once for aligned checkpoints)
        CompletableFuture<?>[] inflight = new CompletableFuture<?>[outputState.size() + 1];
        outputState.toArray(inflight);
        inflight[outputState.size()] = inputState;
        CompletableFuture.allOf(inflight).whenComplete((ignored, failure) -> {
            if (failure != null) {
                Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                if (cause instanceof CheckpointException) {
                    // the checkpoint was aborted at this task (subsumed, cancel marker): abortCheckpoint
                    // declines it with that reason, or leaves it to the task that started the abort
                    LOG.debug("In-flight recording of checkpoint {} at task {} (job {}) ended: {}", id, taskId, jobName,
                            cause.getMessage());
                    discard(pending);
                    return;
                }
                LOG.debug("In-flight data of checkpoint {} at task {} (job {}) is incomplete: {}", id, taskId, jobName, failure.toString());
                discard(pending);
                responder.declineCheckpoint(taskId, id, CheckpointFailureReason.CHECKPOINT_DECLINED, failure);
                return;
            }
            try {
                asyncOperations.execute(() -> runAsyncPart(id, barrier, pending, outputState, inputState.join(), alignment, syncMs, asyncStart));
            } catch (RejectedExecutionException e) {
                discard(pending);
                responder.declineCheckpoint(taskId, id, CheckpointFailureReason.JOB_SHUTTING_DOWN, e);
            }
        });
    }

    private void runAsyncPart(long id, CheckpointBarrier barrier, List<PendingSnapshot> pending,
            List<CompletableFuture<List<byte[]>>> outputState, RecordedInput inputState,
            BarrierAlignment alignment, long syncMs, long asyncStart) {
        try {
            CheckpointStreamFactory streams = storage.resolveCheckpoint(id);
            List<ChannelStateHandle> input = new ArrayList<>();
            for (Map.Entry<Integer, List<byte[]>> e : new java.util.TreeMap<>(inputState.buffers()).entrySet()) {
                ChannelStateHandle h = ChannelStateWriter.write(e.getKey(), e.getValue(), streams);
                if (h != null) {
                    input.add(h);
                }
            }
            List<ChannelStateHandle> output = new ArrayList<>();
            for (int i = 0; i < outputState.size(); i++) {
                ChannelStateHandle h = ChannelStateWriter.write(i, outputState.get(i).join(), streams);
                if (h != null) {
                    output.add(h);
                }
            }
            Map<String, OperatorSubtaskState> states = new HashMap<>();
            for (int i = 0; i < pending.size(); i++) {
                PendingSnapshot p = pending.get(i);
                OperatorStateHandle op = p.operatorState.write();
                KeyGroupsStateHandle keyed = p.keyedState == null ? null : p.keyedState.write();
                states.put(p.operatorId, new OperatorSubtaskState(op == null ? List.of() : List.of(op),
                        keyed == null ? List.of() : List.of(keyed), i == 0 ? input : List.of(),
                        i == pending.size() - 1 ? output : List.of()));
            }
            TaskStateSnapshot snapshot = new TaskStateSnapshot(states);
            long persisted = 0;
            for (ChannelStateHandle h : input) {
                persisted += h.dataBytes();
            }
            for (ChannelStateHandle h : output) {
                persisted += h.dataBytes();
            }
            long asyncMs = (System.nanoTime() - asyncStart) / 1_000_000;
            SubtaskCheckpointMetrics metrics = new SubtaskCheckpointMetrics(System.currentTimeMillis(), alignment.startDelayMs(),
                    alignment.alignmentDurationNanos() / 1_000_000, syncMs, asyncMs, snapshot.checkpointedSize(id), persisted,
                    alignment.processedBytesDuringAlignment() + inputState.processedBytes(),
                    barrier.options().isUnaligned() || persisted > 0, snapshot.stateSize());
            responder.acknowledgeCheckpoint(taskId, id, metrics, snapshot);
        } catch (Throwable e) {
            LOG.warn("Task {} of job {} failed the asynchronous part of checkpoint {}", taskId, jobName, id, e);
            responder.declineCheckpoint(taskId, id, e instanceof IOException
                    ? CheckpointFailureReason.IO_EXCEPTION : CheckpointFailureReason.CHECKPOINT_DECLINED, e);
        } finally {
            // the snapshots after a failed one were never written: release what their synchronous parts hold
            discard(pending);
        }
    }

    /**
     * Releases what the synchronous parts of {@code pending} hold (a heap backend's snapshot version, a RocksDB
     * snapshot or native checkpoint): for snapshots whose {@link AsyncSnapshot#write} will not run; a no-op for
     * those that were written. Without it a given-up checkpoint would keep RocksDB leases (and so the working
     * directory of a closed backend) and heap snapshot versions forever.
     */
    private void discard(List<PendingSnapshot> pending) {
        for (PendingSnapshot p : pending) {
            try {
                p.operatorState.discard();
                if (p.keyedState != null) {
                    p.keyedState.discard();
                }
            } catch (RuntimeException e) {
                LOG.warn("Operator {} of task {} (job {}) failed to release a snapshot it did not write", p.operatorId,
                        taskId, jobName, e);
            }
        }
    }

    /**
     * Aborts checkpoint {@code id} at this task on a cancel marker or a failed alignment: declines
     * it (unless the abort came from upstream) and forwards a cancel marker downstream.
     */
    public void abortCheckpoint(long id, CheckpointFailureReason reason) {
        lastCheckpointId = Math.max(lastCheckpointId, id);
        if (reason != CheckpointFailureReason.CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER) {
            responder.declineCheckpoint(taskId, id, reason, null);
        }
        channels.broadcastEvent(new CancelCheckpointMarker(id));
    }

    /**
     * Delivers the completion to every operator, even when one throws (PROTOCOL.md §3; failure
     * mode (c) of the issue).
     *
     * @throws Exception the first operator error, with the others suppressed, after all were notified
     */
    public void notifyCheckpointComplete(long id) throws Exception {
        Exception first = null;
        for (SnapshotParticipant p : participants) {
            try {
                if (p.keyedState() != null) {
                    // before the operator: from here on the backend may reuse this checkpoint's shared files
                    p.keyedState().notifyCheckpointComplete(id);
                }
                p.listener().notifyCheckpointComplete(id);
            } catch (Exception e) {
                LOG.error("Operator {} of task {} (job {}) failed in notifyCheckpointComplete({}); the other operators are still notified",
                        p.operatorId(), taskId, jobName, id, e);
                if (first == null) {
                    first = new Exception("operator '" + p.operatorId() + "' of task " + taskId
                            + " failed in notifyCheckpointComplete(" + id + ")", e);
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Delivers the abort to every operator; remembers it if the barrier has not arrived yet (step 0). */
    public void notifyCheckpointAborted(long id) {
        if (id > lastCheckpointId) {
            abortedBeforeBarrier.add(id);
            if (abortedBeforeBarrier.size() > MAX_REMEMBERED_ABORTS) {
                abortedBeforeBarrier.remove(abortedBeforeBarrier.iterator().next());
            }
        }
        for (SnapshotParticipant p : participants) {
            try {
                if (p.keyedState() != null) {
                    p.keyedState().notifyCheckpointAborted(id);
                }
                p.listener().notifyCheckpointAborted(id);
            } catch (Exception e) {
                LOG.warn("Operator {} of task {} (job {}) failed in notifyCheckpointAborted({})", p.operatorId(), taskId, jobName, id, e);
            }
        }
    }

    private record PendingSnapshot(String operatorId, AsyncSnapshot<OperatorStateHandle> operatorState,
            AsyncSnapshot<KeyGroupsStateHandle> keyedState) {
    }
}
