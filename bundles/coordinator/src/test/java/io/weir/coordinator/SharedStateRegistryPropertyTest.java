package io.weir.coordinator;

import io.weir.coordinator.standalone.StandaloneCheckpointIDCounter;
import io.weir.coordinator.standalone.StandaloneCompletedCheckpointStore;
import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.OperatorState;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.checkpoint.SharedFileHandle;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.storage.CheckpointStateOutputStream;
import io.weir.core.storage.CheckpointStreamFactory;
import io.weir.storage.fs.FsCheckpointStorage;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Property test of the shared-state bookkeeping (SharedStateRegistry through CheckpointLocationDiscarder and
 * CheckpointRestorer) on a real {@link FsCheckpointStorage}: random sequences of checkpoints that complete (and
 * subsume older ones), abort, and restores in a new "process" (a fresh registry and store, after a kill that may
 * leave orphan files), by two subtasks that reference the files of their last completed checkpoint and upload new
 * ones, as the RocksDB backend does; the completed store is new in every process, or (an HA store) survives the
 * restarts. After every step: no file a retained checkpoint refers to has been deleted,
 * and no shared file exists that no retained checkpoint refers to. The seed is in the test name.
 */
class SharedStateRegistryPropertyTest {
    private static final String JOB = "job";

    @TempDir
    Path dir;

    /** One subtask's incremental backend, abstractly: the files of its last completed checkpoint. */
    private static final class Subtask {
        final int index;
        Map<String, SharedFileHandle> confirmed = new HashMap<>();
        final Map<Long, Map<String, SharedFileHandle>> pending = new HashMap<>();
        int nextFile;

        Subtask(int index) {
            this.index = index;
        }
    }

    private FsCheckpointStorage storage;
    private StandaloneCompletedCheckpointStore store;
    private CheckpointLocationDiscarder discarder;
    private final List<Subtask> subtasks = List.of(new Subtask(0), new Subtask(1));
    private long nextId = 1;
    private boolean storeSurvives;

    /**
     * @param storeSurvives whether the completed store outlives a process (an HA store: the new coordinator finds
     *        the retained checkpoints in it, not only in storage), while the registry is always new
     */
    @ParameterizedTest(name = "seed {0}, store survives restarts {1}")
    @CsvSource({"1, false", "2, false", "3, false", "4, false", "1, true", "2, true", "3, true", "4, true"})
    void noReferencedFileIsEverDeletedAndNoUnreferencedFileStays(long seed, boolean storeSurvives) throws Exception {
        Random random = new Random(seed);
        storage = new FsCheckpointStorage(dir, JOB);
        int retained = 1 + random.nextInt(3);
        this.storeSurvives = storeSurvives;
        newProcess(retained);
        for (int step = 0; step < 80; step++) {
            int action = random.nextInt(10);
            String what;
            if (action < 6) {
                what = "complete " + nextId;
                complete(random);
            } else if (action < 9) {
                what = "abort " + nextId;
                abort(random);
            } else {
                what = "restore";
                killAndRestore(random, retained);
            }
            assertInvariants(seed, step, what);
        }
    }

    private void newProcess(int retained) {
        if (store == null || !storeSurvives) {
            store = new StandaloneCompletedCheckpointStore(JOB, retained);
        }
        discarder = new CheckpointLocationDiscarder(JOB, storage);
        subtasks.forEach(s -> {
            s.confirmed = new HashMap<>();
            s.pending.clear();
        });
    }

    /** What each subtask's async part writes: references to its confirmed files (a random subset) and new uploads. */
    private Map<Integer, OperatorSubtaskState> snapshot(long id, Random random) throws Exception {
        CheckpointStreamFactory streams = storage.initCheckpoint(id);
        Map<Integer, OperatorSubtaskState> states = new HashMap<>();
        for (Subtask s : subtasks) {
            Map<String, SharedFileHandle> files = new HashMap<>();
            for (SharedFileHandle f : s.confirmed.values()) {
                if (random.nextInt(3) > 0) { // some files were compacted away
                    files.put(f.name(), f);
                }
            }
            int fresh = (files.isEmpty() ? 1 : 0) + random.nextInt(3);
            for (int i = 0; i < fresh; i++) {
                CheckpointStateOutputStream out = streams.createSharedOutputStream();
                // more than the inline threshold, so that every shared file is a real file
                out.write(new byte[5000 + random.nextInt(100)]);
                String name = String.format("%06d.sst", ++s.nextFile);
                files.put(name, new SharedFileHandle(name, out.closeAndGetHandle(), id));
            }
            CheckpointStateOutputStream privateStream = streams.createOutputStream();
            privateStream.write(new byte[] {1, 2, 3});
            KeyGroupRange range = new KeyGroupRange(s.index * 64, s.index * 64 + 63);
            states.put(s.index, new OperatorSubtaskState(List.of(), List.of(new KeyGroupsStateHandle(range, new long[64],
                    privateStream.closeAndGetHandle(), new ArrayList<>(files.values())))));
            s.pending.put(id, files);
        }
        return states;
    }

    private void complete(Random random) throws Exception {
        long id = nextId++;
        Map<Integer, OperatorSubtaskState> states = snapshot(id, random);
        CheckpointMetadata metadata = new CheckpointMetadata(id, JOB, id, false,
                Map.of("keyed", new OperatorState("keyed", 2, 128, states)));
        String pointer = storage.finalizeCheckpoint(metadata);
        discarder.addToStore(store, new CompletedCheckpoint(id, id, id, pointer, metadata));
        for (Subtask s : subtasks) { // notifyCheckpointComplete
            s.confirmed = s.pending.remove(id);
            s.pending.clear();
        }
    }

    private void abort(Random random) throws Exception {
        long id = nextId++;
        snapshot(id, random);
        discarder.discard(id);
        subtasks.forEach(s -> s.pending.remove(id)); // notifyCheckpointAborted
    }

    /** The process dies (maybe in the middle of a checkpoint's uploads) and a new one restores the job. */
    private void killAndRestore(Random random, int retained) throws Exception {
        if (random.nextBoolean()) {
            snapshot(nextId++, random); // uploads of a checkpoint that never completed nor was aborted
        }
        newProcess(retained);
        CheckpointRestorer restorer = new CheckpointRestorer(JOB, store, storage, new StandaloneCheckpointIDCounter(), discarder,
                List.of());
        restorer.restoreLatest();
    }

    private Set<String> existingSharedFiles() throws Exception {
        Path shared = dir.resolve(JOB).resolve(FsCheckpointStorage.SHARED_DIR);
        if (!Files.exists(shared)) {
            return Set.of();
        }
        try (Stream<Path> files = Files.walk(shared)) {
            return files.filter(Files::isRegularFile).map(p -> p.toAbsolutePath().normalize().toString())
                    .collect(Collectors.toSet());
        }
    }

    private void assertInvariants(long seed, int step, String what) throws Exception {
        Set<String> referenced = new HashSet<>();
        for (CompletedCheckpoint cp : store.getAllCheckpoints()) {
            for (OperatorState op : cp.metadata().operatorStates().values()) {
                for (OperatorSubtaskState s : op.subtaskStates().values()) {
                    for (SharedFileHandle f : s.sharedFiles()) {
                        referenced.add(f.registryKey());
                    }
                }
            }
        }
        Set<String> existing = existingSharedFiles();
        assertThat(existing).as("seed %d step %d (%s): files retained checkpoints %s refer to must exist", seed, step, what,
                store.getAllCheckpoints().stream().map(CompletedCheckpoint::checkpointId).toList()).containsAll(referenced);
        assertThat(existing).as("seed %d step %d (%s): no unreferenced shared file stays", seed, step, what)
                .isSubsetOf(referenced);
        for (String key : referenced) {
            assertThat(discarder.registry().count(key)).as("seed %d step %d: reference count of %s", seed, step, key)
                    .isEqualTo((int) store.getAllCheckpoints().stream().filter(cp -> cp.metadata().operatorStates().values()
                            .stream().flatMap(o -> o.subtaskStates().values().stream()).flatMap(s -> s.sharedFiles().stream())
                            .anyMatch(f -> f.registryKey().equals(key))).count());
        }
        // every retained checkpoint still restores as far as files go
        for (CompletedCheckpoint cp : store.getAllCheckpoints()) {
            for (StreamStateHandle h : cp.metadata().operatorStates().get("keyed").subtaskStates().values().stream()
                    .flatMap(s -> s.sharedFiles().stream()).map(SharedFileHandle::handle).toList()) {
                try (var in = h.open()) {
                    assertThat(in.readAllBytes()).hasSize((int) h.size());
                }
            }
        }
    }
}
