package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.OperatorState;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.checkpoint.SharedFileHandle;
import io.weir.core.checkpoint.StreamStateHandle;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reference counts of the shared files (incremental checkpoints, docs/checkpoint-format.md "Shared state")
 * over the retained completed checkpoints: a file's count is the number of retained checkpoints whose
 * {@code _metadata} refers to it. The coordinator {@linkplain #register registers} a checkpoint before it enters
 * the completed store and {@linkplain #unregister unregisters} it when the store subsumes it; a file whose
 * count drops to zero is returned for deletion, and never before. On a restore it is rebuilt by registering
 * the retained checkpoints read back from storage, or those of a completed store that outlived the process that
 * filled it (an HA store after a failover).
 *
 * <p>Invariant: {@code counts.get(k)} = number of registered checkpoints referring to {@code k} (each checkpoint
 * counts a file once, however many handles name it), always ≥ 1 for a present key.
 *
 * <p>Not thread-safe: confined to the coordinator's timer thread (the restore runs there too).
 */
final class SharedStateRegistry {
    private record Entry(StreamStateHandle handle, int count) {
    }

    // Timer thread only. Registry key → handle and count.
    private final Map<String, Entry> entries = new HashMap<>();
    // Timer thread only. Registered checkpoint ids, so a double registration or a stray unregistration is caught.
    private final Set<Long> registered = new HashSet<>();

    /**
     * Counts one more reference for every shared file {@code metadata} refers to.
     *
     * @throws IllegalStateException if the checkpoint is registered already
     */
    void register(CheckpointMetadata metadata) {
        if (!registered.add(metadata.checkpointId())) {
            throw new IllegalStateException("checkpoint " + metadata.checkpointId() + " of job " + metadata.jobName()
                    + " is registered with the shared state registry twice");
        }
        for (Map.Entry<String, StreamStateHandle> f : filesOf(metadata).entrySet()) {
            entries.merge(f.getKey(), new Entry(f.getValue(), 1), (a, b) -> new Entry(a.handle(), a.count() + 1));
        }
    }

    /**
     * Counts one reference less for every shared file {@code metadata} refers to.
     *
     * @return the files no registered checkpoint refers to any more: the caller deletes them
     * @throws IllegalStateException if the checkpoint is not registered
     */
    List<StreamStateHandle> unregister(CheckpointMetadata metadata) {
        if (!registered.remove(metadata.checkpointId())) {
            throw new IllegalStateException("checkpoint " + metadata.checkpointId() + " of job " + metadata.jobName()
                    + " is not registered with the shared state registry");
        }
        List<StreamStateHandle> unreferenced = new ArrayList<>();
        for (String key : filesOf(metadata).keySet()) {
            Entry e = entries.get(key);
            if (e == null) {
                throw new IllegalStateException("shared file " + key + " of checkpoint " + metadata.checkpointId()
                        + " has no reference count");
            }
            if (e.count() == 1) {
                entries.remove(key);
                unreferenced.add(e.handle());
            } else {
                entries.put(key, new Entry(e.handle(), e.count() - 1));
            }
        }
        return unreferenced;
    }

    /** @return whether checkpoint {@code checkpointId} is registered */
    boolean isRegistered(long checkpointId) {
        return registered.contains(checkpointId);
    }

    /** @return the registry keys of every file some registered checkpoint refers to (a copy) */
    Set<String> referenced() {
        return new HashSet<>(entries.keySet());
    }

    /** @return how many registered checkpoints refer to {@code registryKey} (0 if none) */
    int count(String registryKey) {
        Entry e = entries.get(registryKey);
        return e == null ? 0 : e.count();
    }

    /** @return registry key → handle of the files {@code metadata} refers to, each once (inline bytes skipped) */
    private static Map<String, StreamStateHandle> filesOf(CheckpointMetadata metadata) {
        Map<String, StreamStateHandle> files = new HashMap<>();
        for (OperatorState op : metadata.operatorStates().values()) {
            for (OperatorSubtaskState s : op.subtaskStates().values()) {
                for (SharedFileHandle f : s.sharedFiles()) {
                    String key = f.registryKey();
                    if (key != null) {
                        files.putIfAbsent(key, f.handle());
                    }
                }
            }
        }
        return files;
    }
}
