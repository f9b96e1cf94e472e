package io.weir.state.rocksdb;

import io.weir.api.Row;
import io.weir.api.serialization.Serializers;
import io.weir.api.serialization.TypeSerializer;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.state.AsyncSnapshot;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.storage.CheckpointStateOutputStream;
import io.weir.core.storage.CheckpointStreamFactory;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksIterator;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The asynchronous part of a RocksDB snapshot: iterates a RocksDB snapshot (taken in the synchronous part,
 * so later writes of the task are invisible) key group by key group and writes the {@link CanonicalFormat}.
 * Runs on the AsyncOperations pool; it only reads RocksDB through its own iterators and the snapshot, which
 * RocksDB allows concurrently with the task's writes. The snapshot lease is released when done, in every case.
 */
final class CanonicalSnapshotWriter implements AsyncSnapshot<KeyGroupsStateHandle> {
    /** One state as of the snapshot: a column family, or restored-but-unregistered bytes. */
    record Picture(String name, StateKind kind, org.rocksdb.ColumnFamilyHandle column, RestoredState restored) {
    }

    private final long checkpointId;
    private final KeyGroupRange range;
    private final TypeSerializer<Row> keySerializer;
    private final List<Picture> pictures;
    private final RocksDBKeyedStateBackend.SnapshotLease lease;
    private final CheckpointStreamFactory streams;
    private final String context;

    CanonicalSnapshotWriter(long checkpointId, KeyGroupRange range, TypeSerializer<Row> keySerializer, List<Picture> pictures,
            RocksDBKeyedStateBackend.SnapshotLease lease, CheckpointStreamFactory streams, String context) {
        this.checkpointId = checkpointId;
        this.range = range;
        this.keySerializer = keySerializer;
        this.pictures = List.copyOf(pictures);
        this.lease = lease;
        this.streams = streams;
        this.context = context;
    }

    /**
     * @return the handle: the key-group range, one offset per key group, the stream
     * @throws IOException naming the checkpoint and subtask if reading RocksDB or writing the stream fails
     *         (the stream is then discarded)
     */
    @Override
    public KeyGroupsStateHandle write() throws IOException {
        List<RocksIterator> iterators = new ArrayList<>();
        CheckpointStateOutputStream out = null;
        try (ReadOptions read = new ReadOptions().setSnapshot(lease.snapshot())) {
            for (Picture p : pictures) {
                iterators.add(p.column() == null ? null : lease.db().newIterator(p.column(), read));
            }
            out = streams.createOutputStream();
            DataOutputStream data = new DataOutputStream(out);
            data.writeInt(CanonicalFormat.MAGIC);
            data.writeInt(CanonicalFormat.VERSION);
            long[] offsets = new long[range.size()];
            ByteArrayOutputStream[] blocks = new ByteArrayOutputStream[pictures.size()];
            int[] counts = new int[pictures.size()];
            for (int i = 0; i < offsets.length; i++) {
                int kg = range.start() + i;
                offsets[i] = out.position();
                int present = 0;
                for (int s = 0; s < pictures.size(); s++) {
                    Picture p = pictures.get(s);
                    if (p.restored() != null) {
                        counts[s] = p.restored().entryCounts[i];
                        blocks[s] = null;
                    } else {
                        blocks[s] = new ByteArrayOutputStream(256);
                        counts[s] = collect(p, iterators.get(s), kg, blocks[s]);
                    }
                    if (counts[s] > 0) {
                        present++;
                    }
                }
                data.writeInt(kg);
                data.writeInt(present);
                for (int s = 0; s < pictures.size(); s++) {
                    if (counts[s] == 0) {
                        continue;
                    }
                    Picture p = pictures.get(s);
                    Serializers.writeString(p.name(), data);
                    data.writeByte(p.kind().code);
                    data.writeInt(counts[s]);
                    if (p.restored() != null) {
                        byte[] bytes = p.restored().entries[i];
                        data.writeInt(bytes.length);
                        data.write(bytes);
                    } else {
                        data.writeInt(blocks[s].size());
                        blocks[s].writeTo(data);
                    }
                }
            }
            data.flush();
            StreamStateHandle handle = out.closeAndGetHandle();
            return new KeyGroupsStateHandle(range, offsets, handle);
        } catch (IOException | RuntimeException e) {
            if (out != null) {
                out.close();
            }
            throw new IOException("writing RocksDB keyed state of checkpoint " + checkpointId + " (" + context + ") failed: " + e, e);
        } finally {
            iterators.forEach(it -> {
                if (it != null) {
                    it.close();
                }
            });
            lease.release();
        }
    }

    /** Releases the RocksDB snapshot's lease. */
    @Override
    public void discard() {
        lease.release();
    }

    /** Writes the canonical entries of one state in one key group into {@code block}; returns the entry count. */
    private int collect(Picture p, RocksIterator it, int kg, ByteArrayOutputStream block) throws IOException {
        byte[] prefix = KeyBytes.keyGroupPrefix(kg);
        int count = 0;
        if (p.kind() == StateKind.TIMERS) {
            return collectTimers(it, prefix, block);
        }
        if (p.kind() != StateKind.MAP) {
            for (it.seek(prefix); it.isValid() && KeyBytes.startsWith(it.key(), prefix); it.next()) {
                byte[] key = it.key();
                block.write(key, 2, key.length - 2);
                block.write(it.value());
                count++;
            }
            return count;
        }
        // map state: consecutive rows with the same key form one entry: key | count | (user key, value)*
        byte[] currentKey = null;
        int pairs = 0;
        ByteArrayOutputStream pairBytes = new ByteArrayOutputStream(256);
        for (it.seek(prefix); it.isValid() && KeyBytes.startsWith(it.key(), prefix); it.next()) {
            byte[] rowKey = it.key();
            int keyLength = KeyBytes.lengthOf(keySerializer, rowKey, 2);
            if (currentKey == null || !Arrays.equals(currentKey, 0, currentKey.length, rowKey, 2, 2 + keyLength)) {
                if (currentKey != null) {
                    writeMapEntry(block, currentKey, pairs, pairBytes);
                    count++;
                }
                currentKey = Arrays.copyOfRange(rowKey, 2, 2 + keyLength);
                pairs = 0;
                pairBytes.reset();
            }
            pairBytes.write(rowKey, 2 + keyLength, rowKey.length - 2 - keyLength);
            pairBytes.write(it.value());
            pairs++;
        }
        if (currentKey != null) {
            writeMapEntry(block, currentKey, pairs, pairBytes);
            count++;
        }
        return count;
    }

    /**
     * Timers: rows {@code key group | timestamp | key} in timestamp order become one entry per key,
     * {@code key | count int | timestamps ascending}, the heap backend's form.
     */
    private static int collectTimers(RocksIterator it, byte[] prefix, ByteArrayOutputStream block) throws IOException {
        Map<ByteBuffer, List<Long>> byKey = new LinkedHashMap<>();
        for (it.seek(prefix); it.isValid() && KeyBytes.startsWith(it.key(), prefix); it.next()) {
            byte[] row = it.key();
            byKey.computeIfAbsent(ByteBuffer.wrap(row, 10, row.length - 10).slice(), k -> new ArrayList<>())
                    .add(RocksTimerQueue.timestampOf(row));
        }
        DataOutputStream out = new DataOutputStream(block);
        for (Map.Entry<ByteBuffer, List<Long>> e : byKey.entrySet()) {
            ByteBuffer key = e.getKey();
            out.write(key.array(), key.arrayOffset(), key.remaining());
            out.writeInt(e.getValue().size());
            for (long t : e.getValue()) {
                out.writeLong(t);
            }
        }
        out.flush();
        return byKey.size();
    }

    private static void writeMapEntry(ByteArrayOutputStream block, byte[] key, int pairs, ByteArrayOutputStream pairBytes)
            throws IOException {
        block.write(key);
        block.write(new byte[] {(byte) (pairs >>> 24), (byte) (pairs >>> 16), (byte) (pairs >>> 8), (byte) pairs});
        pairBytes.writeTo(block);
    }
}
