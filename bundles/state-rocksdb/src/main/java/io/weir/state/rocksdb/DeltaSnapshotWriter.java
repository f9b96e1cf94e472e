package io.weir.state.rocksdb;

import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.state.AsyncSnapshot;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.storage.CheckpointStreamFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The asynchronous part of a delta snapshot (docs/state-rocksdb.md, "Delta checkpoints"): the live DB has not been
 * written since the native checkpoint of a completed incremental snapshot (the base), so the state as of the
 * barrier is that checkpoint plus the state caches' dirty values, taken in the synchronous part. This writes the
 * base's columns plus those values (serialized here) as the private stream ({@link IncrementalFormat}, its delta)
 * and refers to all the base's files (SST, MANIFEST, CURRENT, OPTIONS: shared files, so the coordinator's registry
 * keeps them while a delta refers to them, also after the base is subsumed); it uploads no file and neither
 * flushes nor touches RocksDB. Restoring opens the base's files and writes the delta over them.
 * Runs on the AsyncOperations pool.
 */
final class DeltaSnapshotWriter implements AsyncSnapshot<KeyGroupsStateHandle> {
    private static final Logger LOG = LoggerFactory.getLogger(DeltaSnapshotWriter.class);

    private final long checkpointId;
    private final KeyGroupRange range;
    private final NativeCheckpointFiles base;
    private final List<WriteBackCache.PendingWrites<?>> values;
    private final CheckpointStreamFactory streams;
    private final Consumer<NativeCheckpointFiles> onWritten;
    private final String context;

    /**
     * @param base the native checkpoint of the last completed incremental snapshot, which the DB still equals
     * @param values the state caches' dirty values as of the synchronous part (immutable, see {@link WriteBackCache})
     * @param onWritten receives {@code base} once the stream is written: the files this snapshot refers to
     */
    DeltaSnapshotWriter(long checkpointId, KeyGroupRange range, NativeCheckpointFiles base,
            List<WriteBackCache.PendingWrites<?>> values, CheckpointStreamFactory streams,
            Consumer<NativeCheckpointFiles> onWritten, String context) {
        this.checkpointId = checkpointId;
        this.range = range;
        this.base = base;
        this.values = List.copyOf(values);
        this.streams = streams;
        this.onWritten = onWritten;
        this.context = context;
    }

    /**
     * @return the handle: offsets all 0, the private stream (columns, delta), the base's files as shared files
     * @throws IOException naming the checkpoint and subtask if a value does not serialize or the stream fails
     */
    @Override
    public KeyGroupsStateHandle write() throws IOException {
        long start = System.nanoTime();
        try {
            // the delta section in one buffer: every value serialized straight into it, then one write
            int rows = 0;
            for (WriteBackCache.PendingWrites<?> w : values) {
                rows += w.size();
            }
            ScratchBuffers.Output delta = new ScratchBuffers.Output((int) Math.min(1 << 30, 64L + 32L * rows));
            for (WriteBackCache.PendingWrites<?> w : values) {
                w.encodeDelta(delta);
            }
            long serialized = System.nanoTime();
            StreamStateHandle delegate = IncrementalFormat.writeStream(streams, data -> {
                IncrementalFormat.writeHead(data, checkpointId, base.columns(), Map.of());
                data.writeInt(values.size());
                data.write(delta.buffer(), 0, delta.size());
            });
            onWritten.accept(base);
            LOG.debug("Delta snapshot of checkpoint {} ({}): {} cached values of {} state(s) over the native checkpoint of {} "
                    + "({} files reused); asynchronous part {} us: serialization {} us, private stream ({} bytes) {} us",
                    checkpointId, context, rows, values.size(), base.checkpointId(), base.shared().size(),
                    (System.nanoTime() - start) / 1000, (serialized - start) / 1000, delegate.size(),
                    (System.nanoTime() - serialized) / 1000);
            return new KeyGroupsStateHandle(range, new long[range.size()], delegate, new ArrayList<>(base.shared().values()));
        } catch (IOException | RuntimeException e) {
            throw new IOException("writing the delta RocksDB snapshot of checkpoint " + checkpointId + " (" + context
                    + ") failed: " + e, e);
        }
    }
}
