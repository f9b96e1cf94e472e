package io.weir.runtime.scheduler;

import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.OperatorState;
import io.weir.core.checkpoint.OperatorStateHandle;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobVertex;
import io.weir.core.job.VertexKind;
import io.weir.core.state.KeyGroupAssignment;
import io.weir.core.state.KeyGroupRange;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Decides which checkpointed state each new subtask restores (PROTOCOL.md §7). With unchanged
 * parallelism a subtask gets exactly what the same index checkpointed, except that union list state
 * always goes to every subtask. With another parallelism:
 * <ul>
 * <li>keyed state follows key groups: subtask {@code i} gets every old handle whose key-group range
 *     overlaps its new range, and the backend reads only the key groups of its range (by their
 *     offsets in the handle);</li>
 * <li>operator list state is split evenly: the elements of each named list, taken in old-subtask
 *     order, are dealt round-robin over the new subtasks (element {@code n} of a name goes to subtask
 *     {@code n % parallelism}), each restoring exactly the elements it was dealt;</li>
 * <li>union list state ({@link OperatorStateHandle#isUnionKey}): every subtask gets all elements of
 *     every old subtask, in old-subtask order;</li>
 * <li>in-flight channel state is not part of the per-subtask assignment: {@link ChannelStateRestore}
 *     redistributes it per edge.</li>
 * </ul>
 * {@link #checkRestorable} refuses, before anything is deployed, what cannot be assigned soundly.
 * Stateless; job master thread.
 */
final class StateAssignment {
    private StateAssignment() {
    }

    /**
     * Refuses a restore that cannot be assigned soundly, naming the operator and what to do.
     *
     * @param metadata the checkpoint restored from
     * @param job the job being deployed
     * @param maxParallelism the job's {@code pipeline.max-parallelism} (key groups)
     * @param rescalableSource whether the source plugin of a type ({@link io.weir.api.plugin.SourceFactory#supportsRescale})
     *        keeps its splits in redistributable list state
     * @throws IllegalStateException if an operator with keyed state had another max parallelism in the
     *         checkpoint (its key groups would differ), if an operator's new parallelism exceeds the
     *         max parallelism, or if the parallelism of a source whose plugin does not support rescaling
     *         changed (such sources own their input split by subtask index)
     */
    static void checkRestorable(CheckpointMetadata metadata, JobGraph job, int maxParallelism,
            java.util.function.Predicate<String> rescalableSource) {
        for (JobVertex v : job.vertices()) {
            OperatorState os = metadata.operatorStates().get(v.id());
            if (os == null) {
                continue;
            }
            if (v.parallelism() > maxParallelism) {
                throw new IllegalStateException("operator '" + v.id() + "' of job " + job.name() + " has parallelism "
                        + v.parallelism() + ", more than its max parallelism " + maxParallelism
                        + " (pipeline.max-parallelism): lower the parallelism to at most " + maxParallelism);
            }
            boolean keyed = os.subtaskStates().values().stream().anyMatch(s -> !s.keyedState().isEmpty());
            if (keyed && os.maxParallelism() != maxParallelism) {
                throw new IllegalStateException("operator '" + v.id() + "' of job " + job.name() + " has keyed state in "
                        + os.maxParallelism() + " key groups in checkpoint " + metadata.checkpointId()
                        + ", but the job now has pipeline.max-parallelism " + maxParallelism
                        + ": key groups cannot change on restore; set pipeline.max-parallelism back to " + os.maxParallelism());
            }
            if (v.kind() == VertexKind.SOURCE && os.parallelism() != v.parallelism() && !rescalableSource.test(v.type())) {
                throw new IllegalStateException("source '" + v.id() + "' of job " + job.name() + " has parallelism "
                        + v.parallelism() + " but checkpoint " + metadata.checkpointId() + " was taken with parallelism "
                        + os.parallelism() + "; the input of a '" + v.type() + "' source is split by subtask index, so it cannot"
                        + " be rescaled on restore: restore with the checkpoint's parallelism " + os.parallelism() + " for '"
                        + v.id() + "'");
            }
        }
    }

    /**
     * @param metadata the checkpoint restored from
     * @param vertex the operator
     * @param subtask the new subtask index, {@code 0 <= subtask < vertex.parallelism()}
     * @param maxParallelism key groups ({@link #checkRestorable} made sure the checkpoint has as many)
     * @return the keyed and operator state handles this subtask restores; empty for an operator the
     *         checkpoint does not know. Channel state is included only with unchanged parallelism.
     */
    static OperatorSubtaskState assign(CheckpointMetadata metadata, JobVertex vertex, int subtask, int maxParallelism) {
        OperatorState os = metadata.operatorStates().get(vertex.id());
        if (os == null) {
            return OperatorSubtaskState.empty();
        }
        if (os.parallelism() == vertex.parallelism()) {
            OperatorSubtaskState own = os.subtaskStates().getOrDefault(subtask, OperatorSubtaskState.empty());
            if (!hasUnionState(os)) {
                return own;
            }
            return new OperatorSubtaskState(dealOperatorState(os, vertex.parallelism(), subtask), own.keyedState(),
                    own.inputChannelState(), own.resultSubpartitionState());
        }
        KeyGroupRange range = KeyGroupAssignment.rangeForSubtask(maxParallelism, vertex.parallelism(), subtask);
        List<KeyGroupsStateHandle> keyed = new ArrayList<>();
        for (OperatorSubtaskState s : new TreeMap<>(os.subtaskStates()).values()) {
            for (KeyGroupsStateHandle h : s.keyedState()) {
                if (h.range().start() <= range.end() && range.start() <= h.range().end()) {
                    keyed.add(h);
                }
            }
        }
        return new OperatorSubtaskState(dealOperatorState(os, vertex.parallelism(), subtask), keyed);
    }

    private static boolean hasUnionState(OperatorState os) {
        return os.subtaskStates().values().stream().flatMap(s -> s.operatorState().stream())
                .anyMatch(h -> h.stateOffsets().keySet().stream().anyMatch(OperatorStateHandle::isUnionKey));
    }

    /**
     * Round-robin of list elements: walks the old subtasks in index order, their handles in order, and
     * each handle's names in name order; the {@code n}-th element of a name (counted over all old
     * subtasks) goes to new subtask {@code n % parallelism}. Every element of a union list state goes
     * to every subtask. With unchanged parallelism ({@code os.parallelism() == parallelism}), list
     * state stays where it was: subtask {@code i} keeps old subtask {@code i}'s elements.
     *
     * @return one handle per old handle that gives this subtask at least one element, listing just those elements
     */
    static List<OperatorStateHandle> dealOperatorState(OperatorState os, int parallelism, int subtask) {
        boolean unchanged = os.parallelism() == parallelism;
        Map<String, Integer> dealt = new TreeMap<>();
        List<OperatorStateHandle> mine = new ArrayList<>();
        for (Map.Entry<Integer, OperatorSubtaskState> old : new TreeMap<>(os.subtaskStates()).entrySet()) {
            for (OperatorStateHandle h : old.getValue().operatorState()) {
                Map<String, long[]> offsets = new LinkedHashMap<>();
                for (Map.Entry<String, long[]> e : new TreeMap<>(h.stateOffsets()).entrySet()) {
                    boolean union = OperatorStateHandle.isUnionKey(e.getKey());
                    int n = dealt.getOrDefault(e.getKey(), 0);
                    List<Long> kept = new ArrayList<>();
                    for (long offset : e.getValue()) {
                        if (union || (unchanged ? old.getKey() == subtask : n % parallelism == subtask)) {
                            kept.add(offset);
                        }
                        n++;
                    }
                    dealt.put(e.getKey(), n);
                    if (!kept.isEmpty()) {
                        offsets.put(e.getKey(), kept.stream().mapToLong(Long::longValue).toArray());
                    }
                }
                if (!offsets.isEmpty()) {
                    mine.add(new OperatorStateHandle(offsets, h.delegate()));
                }
            }
        }
        return mine;
    }
}
