package io.weir.state.rocksdb;

import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.SharedFileHandle;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.state.AsyncSnapshot;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.storage.CheckpointStateOutputStream;
import io.weir.core.storage.CheckpointStreamFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The asynchronous part of an incremental RocksDB snapshot: creates the native checkpoint (flush, hard links;
 * unless the task thread already did, see {@link PendingNativeCheckpoint}), uploads its SST files that the
 * last completed checkpoint of this backend did not already reference, references those it did, uploads the rest
 * of the checkpoint directory (MANIFEST, CURRENT, OPTIONS) as shared files too (so delta snapshots over this one
 * can refer to them instead of writing them again), writes the column list as the private stream
 * ({@link IncrementalFormat}), and deletes the local checkpoint directory in every case. Runs on the AsyncOperations pool; touches only the checkpoint directory and checkpoint storage.
 */
final class IncrementalSnapshotWriter implements AsyncSnapshot<KeyGroupsStateHandle> {
    private static final Logger LOG = LoggerFactory.getLogger(IncrementalSnapshotWriter.class);

    private final long checkpointId;
    private final KeyGroupRange range;
    private final PendingNativeCheckpoint nativeCheckpoint;
    private final Path checkpointDirectory;
    private final Map<String, StateKind> columns;
    private final Map<String, SharedFileHandle> reusable;
    private final CheckpointStreamFactory streams;
    private final Consumer<NativeCheckpointFiles> onWritten;
    private final RocksDBKeyedStateBackend.SnapshotLease lease;
    private final String context;

    /**
     * @param nativeCheckpoint the native checkpoint, created first unless the task thread did already; its
     *        directory is deleted when done
     * @param columns state name → kind of every column family in it
     * @param reusable SST name → handle: the shared files of the last completed checkpoint of this backend
     * @param onWritten receives the files this snapshot references (its shared files reused once it completed)
     * @param lease released when done, so a closed backend deletes its working directory only then
     */
    IncrementalSnapshotWriter(long checkpointId, KeyGroupRange range, PendingNativeCheckpoint nativeCheckpoint, Map<String, StateKind> columns,
            Map<String, SharedFileHandle> reusable, CheckpointStreamFactory streams,
            Consumer<NativeCheckpointFiles> onWritten, RocksDBKeyedStateBackend.SnapshotLease lease, String context) {
        this.checkpointId = checkpointId;
        this.range = range;
        this.nativeCheckpoint = nativeCheckpoint;
        this.checkpointDirectory = nativeCheckpoint.target();
        this.columns = new LinkedHashMap<>(columns);
        this.reusable = Map.copyOf(reusable);
        this.streams = streams;
        this.onWritten = onWritten;
        this.lease = lease;
        this.context = context;
    }

    /**
     * @return the handle: offsets all 0, the private stream, the shared files (new and reused)
     * @throws IOException naming the checkpoint, subtask and file if listing, reading or uploading fails
     */
    @Override
    public KeyGroupsStateHandle write() throws IOException {
        long start = System.nanoTime();
        try {
            nativeCheckpoint.create("async");
            long created = System.nanoTime();
            Map<String, Path> files = new TreeMap<>();
            try (Stream<Path> list = Files.list(checkpointDirectory)) {
                list.forEach(p -> files.put(p.getFileName().toString(), p));
            }
            List<SharedFileHandle> shared = new ArrayList<>();
            Map<String, SharedFileHandle> byName = new LinkedHashMap<>();
            long uploaded = 0;
            int ssts = 0;
            for (Map.Entry<String, Path> f : files.entrySet()) {
                String name = f.getKey();
                boolean sst = name.endsWith(".sst");
                // SSTs are immutable, so one of the same name is the same file; MANIFEST, CURRENT and OPTIONS keep
                // their names while their content changes, so they are uploaded again by every native checkpoint
                // (inline in _metadata when small) and shared only by the delta checkpoints over this one
                SharedFileHandle handle = sst ? reusable.get(name) : null;
                if (handle == null) {
                    handle = new SharedFileHandle(name, upload(f.getValue()), checkpointId);
                    uploaded += handle.handle().size();
                }
                ssts += sst ? 1 : 0;
                shared.add(handle);
                byName.put(name, handle);
            }
            if (ssts == 0) {
                throw new IOException("the RocksDB checkpoint in " + checkpointDirectory + " has no SST file");
            }
            long uploadedAt = System.nanoTime();
            StreamStateHandle delegate = IncrementalFormat.writeStream(streams,
                    data -> new IncrementalFormat(checkpointId, columns, Map.of(), List.of()).write(data));
            onWritten.accept(new NativeCheckpointFiles(checkpointId, byName, columns));
            long done = System.nanoTime();
            LOG.debug("Incremental snapshot of checkpoint {} ({}): {} files, {} uploaded now ({} bytes), {} reused; "
                    + "asynchronous part {} us: write-back and native checkpoint {} us, uploads {} us, private stream "
                    + "({} bytes) {} us", checkpointId, context, shared.size(),
                    shared.stream().filter(s -> s.uploadedBy() == checkpointId).count(), uploaded,
                    shared.stream().filter(s -> s.uploadedBy() != checkpointId).count(), (done - start) / 1000,
                    (created - start) / 1000, (uploadedAt - created) / 1000, delegate.size(), (done - uploadedAt) / 1000);
            return new KeyGroupsStateHandle(range, new long[range.size()], delegate, shared);
        } catch (IOException | RuntimeException e) {
            throw new IOException("writing incremental RocksDB state of checkpoint " + checkpointId + " (" + context
                    + ") failed: " + e, e);
        } finally {
            discard();
        }
    }

    /** Deletes the native checkpoint directory (if the task thread created it) and releases the lease. */
    @Override
    public void discard() {
        RocksDBKeyedStateBackend.deleteRecursively(checkpointDirectory, context);
        lease.release();
    }

    private StreamStateHandle upload(Path file) throws IOException {
        CheckpointStateOutputStream out = streams.createSharedOutputStream();
        try (InputStream in = Files.newInputStream(file)) {
            in.transferTo(out);
            return out.closeAndGetHandle();
        } catch (IOException | RuntimeException e) {
            out.close();
            throw new IOException("uploading " + file + ": " + e.getMessage(), e);
        }
    }
}
