package io.weir.storage.fs;

import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.checkpoint.StreamStateHandle.ByteStreamStateHandle;
import io.weir.core.checkpoint.StreamStateHandle.FileStateHandle;
import io.weir.core.config.CheckpointingOptions;
import io.weir.core.config.Configuration;
import io.weir.core.storage.CheckpointStateOutputStream;
import io.weir.core.storage.CheckpointStorage;
import io.weir.core.storage.CheckpointStorageFactory;
import io.weir.core.storage.CheckpointStreamFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FsCheckpointStorageTest {
    @TempDir
    Path base;

    private FsCheckpointStorage storage;

    @BeforeEach
    void createStorage() throws IOException {
        storage = new FsCheckpointStorage(base, "job");
    }

    private static byte[] randomBytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] read(StreamStateHandle h) throws IOException {
        try (InputStream in = h.open()) {
            return in.readAllBytes();
        }
    }

    private static StreamStateHandle write(CheckpointStreamFactory f, byte[] data) throws IOException {
        CheckpointStateOutputStream out = f.createOutputStream();
        // Mixed single-byte and bulk writes exercise both paths across the buffer boundary.
        int i = 0;
        while (i < data.length) {
            if (i % 3 == 0) {
                out.write(data[i++]);
            } else {
                int n = Math.min(data.length - i, 1 + (i % 5000));
                out.write(data, i, n);
                i += n;
            }
        }
        assertThat(out.position()).isEqualTo(data.length);
        return out.closeAndGetHandle();
    }

    @Test
    void factoryIsFoundThroughServiceLoaderAndUsesConfiguredDirectory() throws IOException {
        CheckpointStorageFactory factory = ServiceLoader.load(CheckpointStorageFactory.class).stream()
                .map(ServiceLoader.Provider::get).filter(f -> f.type().equals("filesystem")).findFirst().orElseThrow();
        CheckpointStorage s = factory.create(
                Configuration.empty().with(CheckpointingOptions.DIRECTORY.key(), base.resolve("cp").toString()), "wordcount");
        s.initCheckpoint(3);
        assertThat(base.resolve("cp/wordcount/chk-3")).isDirectory();
    }

    @Test
    void jobNameThatIsNotOneDirectoryIsRejected() {
        assertThatThrownBy(() -> new FsCheckpointStorage(base, "../evil")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("../evil");
    }

    @Test
    void smallStreamIsInlineAndLargeStreamIsAnAbsoluteFile() throws IOException {
        CheckpointStreamFactory f = storage.initCheckpoint(1);
        byte[] small = randomBytes(FsCheckpointStateOutputStream.MEMORY_THRESHOLD_BYTES, 1);
        byte[] large = randomBytes(FsCheckpointStateOutputStream.MEMORY_THRESHOLD_BYTES + 1, 2);
        byte[] huge = randomBytes(300_000, 3);

        StreamStateHandle smallHandle = write(f, small);
        StreamStateHandle largeHandle = write(f, large);
        StreamStateHandle hugeHandle = write(f, huge);

        assertThat(smallHandle).isInstanceOf(ByteStreamStateHandle.class);
        assertThat(read(smallHandle)).isEqualTo(small);
        assertThat(largeHandle).isInstanceOf(FileStateHandle.class);
        assertThat(Path.of(((FileStateHandle) largeHandle).path())).isAbsolute()
                .hasParent(storage.checkpointDirectory(1));
        assertThat(largeHandle.size()).isEqualTo(large.length);
        assertThat(read(largeHandle)).isEqualTo(large);
        assertThat(read(hugeHandle)).isEqualTo(huge);
        try (var files = Files.list(storage.checkpointDirectory(1))) {
            assertThat(files.count()).isEqualTo(2);
        }
    }

    @Test
    void closingWithoutHandleDeletesTheFile() throws IOException {
        CheckpointStateOutputStream out = storage.initCheckpoint(1).createOutputStream();
        out.write(randomBytes(10_000, 4));
        out.close();
        try (var files = Files.list(storage.checkpointDirectory(1))) {
            assertThat(files.count()).isZero();
        }
        assertThatThrownBy(() -> out.write(1)).isInstanceOf(IOException.class).hasMessageContaining("closed");
    }

    /**
     * The checkpoint is aborted (discarded as the coordinator does: its directory, then its unreferenced shared
     * files) while a shared file is still being uploaded: completing the upload fails (before, it returned a handle
     * to a file of a discarded checkpoint, or kept the file if the shared directory had been created again), and
     * no file stays behind.
     */
    @Test
    void sharedFileCompletedAfterItsCheckpointWasDiscardedIsDeleted() throws IOException {
        CheckpointStateOutputStream out = storage.initCheckpoint(8).createSharedOutputStream();
        out.write(randomBytes(10_000, 8)); // beyond the inline threshold: a file in shared/chk-8/
        storage.discardCheckpoint(8);
        storage.discardSharedStateOf(8, Set.of());
        out.write(randomBytes(10_000, 9));

        assertThatThrownBy(out::closeAndGetHandle).isInstanceOf(IOException.class)
                .hasMessageContaining(storage.checkpointDirectory(8).toString()).hasMessageContaining("discarded");
        if (Files.exists(storage.sharedDirectory(8))) {
            try (var files = Files.list(storage.sharedDirectory(8))) {
                assertThat(files.toList()).as("files left in the shared directory of the aborted checkpoint").isEmpty();
            }
        }
    }

    @Test
    void streamOfMissingDirectoryFailsNamingIt() throws IOException {
        storage.initCheckpoint(5);
        storage.discardCheckpoint(5);
        assertThatThrownBy(() -> storage.resolveCheckpoint(5).createOutputStream())
                .hasMessageContaining(storage.checkpointDirectory(5).toString());
    }

    @Test
    void failureToCreateTheStateFileNamesIt() throws IOException {
        CheckpointStateOutputStream out = storage.initCheckpoint(6).createOutputStream();
        out.write(randomBytes(100, 6));
        storage.discardCheckpoint(6); // e.g. aborted while a task was still writing
        assertThatThrownBy(() -> out.write(randomBytes(10_000, 7))).isInstanceOf(IOException.class)
                .hasMessageContaining("cannot create checkpoint state file " + storage.checkpointDirectory(6))
                .hasMessageContaining("job job checkpoint 6");
        out.close();
    }

    @Test
    void finalizeThenLoadRoundTripsAndLeavesNoTemporaryFile() throws IOException {
        storage.initCheckpoint(7);
        CheckpointMetadata m = MetadataSerializerTest.sampleMetadata("job", 7);
        String pointer = storage.finalizeCheckpoint(m);

        assertThat(Path.of(pointer)).isEqualTo(storage.checkpointDirectory(7));
        assertThat(Path.of(pointer, "_metadata")).isRegularFile();
        assertThat(Path.of(pointer, "_metadata.inprogress")).doesNotExist();
        assertThat(MetadataSerializerTest.describe(storage.loadCheckpoint(pointer)))
                .isEqualTo(MetadataSerializerTest.describe(m));
        assertThat(MetadataSerializerTest.describe(storage.loadCheckpoint(pointer + "/_metadata")))
                .isEqualTo(MetadataSerializerTest.describe(m));
        assertThatThrownBy(() -> storage.finalizeCheckpoint(m)).hasMessageContaining("already complete");
    }

    @Test
    void loadingMissingMetadataNamesTheFile() throws IOException {
        storage.initCheckpoint(8);
        assertThatThrownBy(() -> storage.loadCheckpoint(storage.checkpointDirectory(8).toString()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(storage.checkpointDirectory(8).resolve("_metadata").toString())
                .hasMessageContaining("does not exist").hasMessageContaining("cannot be used");
    }

    @Test
    void loadingACorruptFileNamesItAndTheProblem() throws IOException {
        storage.initCheckpoint(9);
        String pointer = storage.finalizeCheckpoint(MetadataSerializerTest.sampleMetadata("job", 9));
        Path file = Path.of(pointer, "_metadata");
        byte[] bytes = Files.readAllBytes(file);
        bytes[40] ^= 1;
        Files.write(file, bytes);
        assertThatThrownBy(() -> storage.loadCheckpoint(pointer))
                .hasMessageContaining(file.toString()).hasMessageContaining("CRC32 mismatch");
    }

    @Test
    void findLatestSkipsIncompleteCheckpointsAndComparesIdsAsNumbers() throws IOException {
        assertThat(storage.findLatestCompletedCheckpoint()).isEmpty();
        for (long id : new long[] {2, 10}) {
            storage.initCheckpoint(id);
            storage.finalizeCheckpoint(MetadataSerializerTest.sampleMetadata("job", id));
        }
        storage.initCheckpoint(12); // in progress: no _metadata

        // chk-10 beats chk-2 numerically although "chk-2" sorts after "chk-10" as text.
        assertThat(storage.findLatestCompletedCheckpoint()).contains(storage.checkpointDirectory(10).toString());
    }

    @Test
    void discardAllExceptRemovesOlderAndIncompleteCheckpointsButNotOnesMovedAside() throws IOException {
        for (long id : new long[] {1, 2, 4}) {
            storage.initCheckpoint(id);
            storage.finalizeCheckpoint(MetadataSerializerTest.sampleMetadata("job", id));
        }
        storage.initCheckpoint(3); // aborted by a kill: no _metadata
        storage.initCheckpoint(5); // in progress when the process died
        Path asideDir = storage.jobDirectory().resolve("chk-0.corrupt");
        Files.createDirectories(asideDir);

        storage.discardAllExcept(java.util.Set.of(2L, 4L));

        try (var dirs = Files.list(storage.jobDirectory())) {
            assertThat(dirs.filter(Files::isDirectory).map(d -> d.getFileName().toString()))
                    .containsExactlyInAnyOrder("chk-2", "chk-4", "chk-0.corrupt");
        }
    }

    @Test
    void retainedCheckpointsAreTheNewestCompleteOnesNewestFirst() throws IOException {
        assertThat(storage.findRetainedCheckpoints(3)).isEmpty();
        for (long id : new long[] {2, 9, 10, 11}) {
            storage.initCheckpoint(id);
            // no state: the sample's state files do not exist, and the newest one's state is verified
            storage.finalizeCheckpoint(new CheckpointMetadata(id, "job", 1L, false, Map.of()));
        }
        storage.initCheckpoint(12); // in progress: no _metadata

        assertThat(storage.findRetainedCheckpoints(3)).containsExactly(storage.checkpointDirectory(11).toString(),
                storage.checkpointDirectory(10).toString(), storage.checkpointDirectory(9).toString());
        assertThat(storage.findRetainedCheckpoints(1)).containsExactly(storage.checkpointDirectory(11).toString());
    }

    @Test
    void corruptNewestCheckpointIsAnErrorNotASilentFallbackThatWouldRepeatCommittedOutput() throws IOException {
        for (long id : new long[] {2, 10, 11}) {
            storage.initCheckpoint(id);
            storage.finalizeCheckpoint(MetadataSerializerTest.sampleMetadata("job", id));
        }
        storage.initCheckpoint(12); // in progress: no _metadata
        Path newest = storage.checkpointDirectory(11).resolve("_metadata");
        byte[] bytes = Files.readAllBytes(newest);
        Files.write(newest, java.util.Arrays.copyOf(bytes, bytes.length / 2));

        assertThatThrownBy(storage::findLatestCompletedCheckpoint).isInstanceOf(IOException.class)
                .hasMessageContaining("the newest completed checkpoint 11 of job")
                .hasMessageContaining("is truncated")
                .hasMessageContaining("To restore from checkpoint 10 anyway")
                .hasMessageContaining("mv " + storage.checkpointDirectory(11));

        // what the message suggests works: moved aside, checkpoint 10 is the newest
        Files.move(storage.checkpointDirectory(11), storage.checkpointDirectory(11).resolveSibling("chk-11.corrupt"));
        assertThat(storage.findLatestCompletedCheckpoint()).contains(storage.checkpointDirectory(10).toString());
    }

    @Test
    void corruptOnlyCheckpointSaysHowToStartOver() throws IOException {
        storage.initCheckpoint(3);
        String pointer = storage.finalizeCheckpoint(MetadataSerializerTest.sampleMetadata("job", 3));
        Files.write(Path.of(pointer, "_metadata"), new byte[] {1, 2, 3});

        assertThatThrownBy(storage::findLatestCompletedCheckpoint).isInstanceOf(IOException.class)
                .hasMessageContaining("checkpoint 3").hasMessageContaining("to start the job over, delete")
                .hasMessageNotContaining("anyway");
    }

    @Test
    void discardRemovesTheDirectoryAndIsIdempotent() throws IOException {
        CheckpointStreamFactory f = storage.initCheckpoint(4);
        write(f, randomBytes(20_000, 5));
        storage.finalizeCheckpoint(new CheckpointMetadata(4, "job", 0, false, Map.of()));
        storage.discardCheckpoint(4);
        assertThat(storage.checkpointDirectory(4)).doesNotExist();
        storage.discardCheckpoint(4);
        storage.discardCheckpoint(999);
    }

    /**
     * A checkpoint is aborted while a task's asynchronous part still writes state files to it (the coordinator
     * discards on its timer thread, the task writes on its own). Whatever the interleaving, the discard succeeds and
     * leaves nothing behind in the job directory, and the writer ends with an error rather than a file. Before the
     * discard renamed the directory aside, a file created between the deletion's listing and the removal of the
     * directory made it fail with DirectoryNotEmptyException and left {@code chk-<id>/} behind (one round in a few
     * dozen here).
     */
    @Test
    void discardRacingAWriterLeavesNothingBehind() throws Exception {
        ExecutorService writer = Executors.newSingleThreadExecutor();
        try {
            for (long id = 1; id <= 300; id++) {
                CheckpointStreamFactory factory = storage.initCheckpoint(id);
                CyclicBarrier start = new CyclicBarrier(2);
                Future<Integer> written = writer.submit(() -> {
                    start.await();
                    int files = 0;
                    try {
                        while (true) { // beyond the inline threshold: each stream is a file in chk-<id>/
                            write(factory, randomBytes(5_000, files));
                            files++;
                        }
                    } catch (IOException expected) {
                        return files;
                    }
                });
                start.await();
                storage.discardCheckpoint(id);
                written.get(10, TimeUnit.SECONDS);
                try (var left = Files.list(base.resolve("job"))) {
                    assertThat(left.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("chk-")).toList())
                            .as("round %d", id).isEmpty();
                }
            }
        } finally {
            writer.shutdownNow();
        }
    }

    /** A discard that did not finish (the process died between the rename and the deletion) is finished on restore. */
    @Test
    void discardAllExceptDeletesDirectoriesADiscardLeftAside() throws IOException {
        storage.finalizeCheckpoint(MetadataSerializerTest.sampleMetadata("job", 2));
        Path leftover = base.resolve("job").resolve("chk-1" + FsCheckpointStorage.DISCARDING_INFIX + "0badf00d");
        Files.createDirectories(leftover.resolve("nested"));
        Files.write(leftover.resolve("nested").resolve("state"), randomBytes(100, 1));
        Path movedAside = Files.createDirectories(base.resolve("job").resolve("chk-3.corrupt"));

        storage.discardAllExcept(Set.of(2L));

        assertThat(leftover).doesNotExist();
        assertThat(movedAside).exists();
        assertThat(storage.checkpointDirectory(2)).exists();
    }

    @Test
    void concurrentStreamsFromSeveralThreadsGetDistinctFiles() throws Exception {
        CheckpointStreamFactory f = storage.initCheckpoint(1);
        int threads = 4;
        int perThread = 25;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<List<StreamStateHandle>>> handles = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                Callable<List<StreamStateHandle>> task = () -> {
                    start.await();
                    List<StreamStateHandle> hs = new ArrayList<>();
                    for (int i = 0; i < perThread; i++) {
                        hs.add(write(f, randomBytes(5000 + i, thread * 1000L + i)));
                    }
                    return hs;
                };
                handles.add(pool.submit(task));
            }
            Set<String> paths = new HashSet<>();
            for (int t = 0; t < threads; t++) {
                List<StreamStateHandle> hs = handles.get(t).get(30, TimeUnit.SECONDS);
                for (int i = 0; i < perThread; i++) {
                    assertThat(read(hs.get(i))).isEqualTo(randomBytes(5000 + i, t * 1000L + i));
                    paths.add(((FileStateHandle) hs.get(i)).path());
                }
            }
            assertThat(paths).hasSize(threads * perThread);
        } finally {
            pool.shutdownNow();
        }
    }
}
