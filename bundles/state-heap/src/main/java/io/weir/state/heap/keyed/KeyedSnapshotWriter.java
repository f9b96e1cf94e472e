package io.weir.state.heap.keyed;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.serialization.Serializers;
import io.weir.api.serialization.TypeSerializer;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.state.AsyncSnapshot;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.storage.CheckpointStateOutputStream;
import io.weir.core.storage.CheckpointStreamFactory;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;

/**
 * The asynchronous part of a keyed heap snapshot: writes the picture taken by
 * {@link HeapKeyedStateBackend#snapshot} in the {@link KeyedSnapshotFormat}. It only reads captured
 * maps, which the task thread does not modify while this writer runs (copy-on-write, {@link StateTable}), and
 * restored bytes, which are immutable; so it runs on any thread with no locks. When it ends (written or failed)
 * it finishes its version in {@link RunningSnapshots}, after which the task thread may change what it read.
 * Safe publication: all captured references are in final fields, set before the task thread hands this
 * object to the AsyncOperations pool.
 */
final class KeyedSnapshotWriter implements AsyncSnapshot<KeyGroupsStateHandle> {
    /** One state as of the snapshot: either live (state + captured maps) or restored-but-unregistered bytes. */
    record Picture<V>(String name, StateKind kind, AbstractHeapState<V> state, KeyGroupMap<V>[] maps,
            RestoredState restored) {
        boolean hasEntries(int index) {
            if (restored != null) {
                return restored.entryCounts[index] > 0;
            }
            KeyGroupMap<V> m = maps[index];
            return m != null && !m.isEmpty();
        }
    }

    private final long checkpointId;
    private final KeyGroupRange range;
    private final TypeSerializer<Row> keySerializer;
    private final List<Picture<?>> pictures;
    private final CheckpointStreamFactory streams;
    private final String context;
    private final RunningSnapshots running;
    private final long version;
    /** The key field's type if keys are rows of one LONG, INT or TIMESTAMP field ({@link KeyContext#integralKeys}), else null. */
    private final FieldType integralKeyType;

    /**
     * @param running where this snapshot's {@code version} is registered; finished when {@link #write} ends
     * @param version this snapshot's version (the epoch after its synchronous part)
     */
    KeyedSnapshotWriter(long checkpointId, KeyGroupRange range, TypeSerializer<Row> keySerializer,
            List<Picture<?>> pictures, CheckpointStreamFactory streams, String context, RunningSnapshots running,
            long version) {
        this.checkpointId = checkpointId;
        this.range = range;
        this.keySerializer = keySerializer;
        this.pictures = List.copyOf(pictures);
        this.streams = streams;
        this.context = context;
        this.running = running;
        this.version = version;
        this.integralKeyType = KeyContext.integralKeys(keySerializer)
                ? ((io.weir.api.RowSerializer) keySerializer).schema().field(0).type() : null;
    }

    /**
     * @return the handle: the key-group range, one offset per key group, the stream
     * @throws IOException naming the checkpoint and subtask if creating or writing the stream fails
     *         (the stream is then discarded)
     */
    @Override
    public KeyGroupsStateHandle write() throws IOException {
        try {
            return writePicture();
        } finally {
            // the maps and values are no longer read: the task thread may change them in place again
            running.finish(version);
        }
    }

    /** Finishes this snapshot's version without writing: the task thread may change what it captured in place. */
    @Override
    public void discard() {
        running.finish(version);
    }

    private KeyGroupsStateHandle writePicture() throws IOException {
        CheckpointStateOutputStream out = streams.createOutputStream();
        try {
            DataOutputStream data = new DataOutputStream(out);
            data.writeInt(KeyedSnapshotFormat.MAGIC);
            data.writeInt(KeyedSnapshotFormat.VERSION);
            ByteArrayOutputStream scratch = new ByteArrayOutputStream(4096);
            DataOutputStream scratchData = new DataOutputStream(scratch);
            long[] offsets = new long[range.size()];
            for (int i = 0; i < offsets.length; i++) {
                offsets[i] = out.position();
                data.writeInt(range.start() + i);
                int count = 0;
                for (Picture<?> p : pictures) {
                    if (p.hasEntries(i)) {
                        count++;
                    }
                }
                data.writeInt(count);
                for (Picture<?> p : pictures) {
                    if (p.hasEntries(i)) {
                        writeState(p, i, data, scratch, scratchData);
                    }
                }
            }
            data.flush();
            StreamStateHandle handle = out.closeAndGetHandle();
            return new KeyGroupsStateHandle(range, offsets, handle);
        } catch (IOException | RuntimeException e) {
            out.close();
            throw new IOException("writing keyed state of checkpoint " + checkpointId + " (" + context + ") failed: " + e, e);
        }
    }

    private <V> void writeState(Picture<V> p, int index, DataOutputStream data, ByteArrayOutputStream scratch,
            DataOutputStream scratchData) throws IOException {
        Serializers.writeString(p.name(), data);
        data.writeByte(p.kind().code);
        if (p.restored() != null) {
            byte[] bytes = p.restored().entries[index];
            data.writeInt(p.restored().entryCounts[index]);
            data.writeInt(bytes.length);
            data.write(bytes);
            return;
        }
        KeyGroupMap<V> map = p.maps()[index];
        scratch.reset();
        KeyGroupMap.Entries<V, IOException> entry = (key, value) -> {
            keySerializer.serialize(key, scratchData);
            p.state().writeValue(value, scratchData);
        };
        if (integralKeyType == null) {
            map.forEach(entry);
        } else {
            // the key row's binary form (RowSerializer: a one-byte null bitmap, 0, then the field) from the map's
            // long keys: no read of the key rows, scattered over the heap, per entry
            map.forEachIntegral((key, value) -> {
                scratchData.writeByte(0);
                if (integralKeyType == FieldType.INT) {
                    scratchData.writeInt((int) key);
                } else {
                    scratchData.writeLong(key);
                }
                p.state().writeValue(value, scratchData);
            }, entry);
        }
        scratchData.flush();
        data.writeInt(map.size());
        data.writeInt(scratch.size());
        scratch.writeTo(data);
    }
}
