package io.weir.state.rocksdb;

import io.weir.api.Row;
import io.weir.api.serialization.TypeSerializer;
import io.weir.core.state.InternalTimer;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyedTimerQueue;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

import java.util.Arrays;
import java.util.TreeSet;

/**
 * A {@link KeyedTimerQueue} in a RocksDB column family: one row per timer, key
 * {@code key group (2 bytes) | timestamp (8 bytes, big-endian, sign bit flipped) | serialized key}, empty value.
 * Under RocksDB's bytewise order the rows of a key group are sorted by timestamp, so the key group's earliest
 * timer is its first row, and rescaling moves timers with their key group like any other keyed state.
 *
 * <p>In memory, per key group, a <em>head cache</em>: the first rows of the key group in order, at most
 * {@code state.backend.rocksdb.timer-service.cache-size} (default {@value #CACHE_CAPACITY}), plus whether they
 * are all of its rows; and a {@link KeyGroupHeads} tree over the key groups' earliest timestamps. Firing ({@link #poll}) takes the cache's first row: no RocksDB read unless the
 * cache ran empty (then one seek refills it). {@link #add} and {@link #delete} of a timer inside the cached
 * prefix are decided by the cache; beyond it one point read tells whether the timer exists (the contract returns
 * whether it was new). This is the shape of Flink's {@code RocksDBCachingPriorityQueueSet}, written for Weir.
 *
 * <p>Task thread only.
 */
final class RocksTimerQueue extends AbstractRocksState implements KeyedTimerQueue {
    /** Rows cached per key group unless configured ({@code state.backend.rocksdb.timer-service.cache-size}, as Flink's). */
    static final int CACHE_CAPACITY = 128;
    /** The value of every row. */
    static final byte[] EMPTY = new byte[0];

    private final TypeSerializer<Row> keySerializer;
    private final KeyGroupRange range;
    /** Per key group index: its first rows, ordered as RocksDB orders them. */
    private final TreeSet<byte[]>[] caches;
    /** Per key group index: the cache holds every row of the key group. */
    private final boolean[] complete;
    private final KeyGroupHeads heads;
    private final int capacity;
    private int size;

    @SuppressWarnings("unchecked")
    RocksTimerQueue(String name, ColumnFamilyHandle column, RocksDB db, WriteOptions writeOptions, KeyContext ctx,
            TypeSerializer<Row> keySerializer, KeyGroupRange range, String context, int capacity) {
        super(name, StateKind.TIMERS, column, db, writeOptions, ctx, context);
        this.capacity = capacity;
        this.keySerializer = keySerializer;
        this.range = range;
        this.caches = new TreeSet[range.size()];
        this.complete = new boolean[range.size()];
        this.heads = new KeyGroupHeads(range.size());
        for (int i = 0; i < caches.length; i++) {
            caches[i] = new TreeSet<>(Arrays::compareUnsigned);
        }
        loadExisting();
    }

    /** One pass over the column family (restored timers): counts them and fills every key group's cache. */
    private void loadExisting() {
        Arrays.fill(complete, true);
        try (RocksIterator it = db.newIterator(column)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                byte[] row = it.key();
                int index = KeyBytes.keyGroupOf(row) - range.start();
                if (index < 0 || index >= caches.length) {
                    continue; // cannot happen: restore copies only the range's key groups
                }
                size++;
                if (caches[index].size() < capacity) {
                    caches[index].add(row);
                } else {
                    complete[index] = false;
                }
            }
        }
        for (int i = 0; i < caches.length; i++) {
            updateHead(i);
        }
    }

    /** @return the row of {@code timestamp} for the current key */
    private byte[] rowOf(long timestamp) {
        return row(ctx.prefix(), 0, ctx.prefix().length, timestamp);
    }

    /**
     * @param keyPrefix holds {@code key group (2 bytes) | serialized key} at {@code [offset, offset + length)}
     * @return the row {@code key group | timestamp | key}
     */
    static byte[] row(byte[] keyPrefix, int offset, int length, long timestamp) {
        byte[] row = new byte[length + 8];
        row[0] = keyPrefix[offset];
        row[1] = keyPrefix[offset + 1];
        long sortable = timestamp ^ Long.MIN_VALUE;
        for (int b = 0; b < 8; b++) {
            row[2 + b] = (byte) (sortable >>> (56 - 8 * b));
        }
        System.arraycopy(keyPrefix, offset + 2, row, 10, length - 2);
        return row;
    }

    /** @return the timestamp of a row */
    static long timestampOf(byte[] row) {
        long sortable = 0;
        for (int b = 0; b < 8; b++) {
            sortable = (sortable << 8) | (row[2 + b] & 0xFF);
        }
        return sortable ^ Long.MIN_VALUE;
    }

    /** @return whether the cache of key group {@code index} decides membership of {@code row} */
    private boolean cacheDecides(int index, byte[] row) {
        TreeSet<byte[]> cache = caches[index];
        return complete[index] || (!cache.isEmpty() && Arrays.compareUnsigned(row, cache.last()) <= 0);
    }

    @Override
    public boolean add(long timestamp) {
        byte[] row = rowOf(timestamp);
        int index = ctx.keyGroup - range.start();
        TreeSet<byte[]> cache = caches[index];
        if (cacheDecides(index, row)) {
            if (!cache.add(row)) {
                return false;
            }
            if (cache.size() > capacity) {
                cache.pollLast(); // still in RocksDB
                complete[index] = false;
            }
        } else if (get(row) != null) {
            return false;
        }
        put(row, EMPTY);
        size++;
        updateHead(index);
        return true;
    }

    @Override
    public boolean delete(long timestamp) {
        byte[] row = rowOf(timestamp);
        int index = ctx.keyGroup - range.start();
        if (cacheDecides(index, row)) {
            if (!caches[index].remove(row)) {
                return false;
            }
        } else if (get(row) == null) {
            return false;
        }
        delete(row);
        size--;
        refillIfEmpty(index);
        updateHead(index);
        return true;
    }

    @Override
    public long peekTimestamp() {
        int index = heads.min();
        return index < 0 ? Long.MAX_VALUE : timestampOf(caches[index].first());
    }

    @Override
    public InternalTimer poll(long maxTimestamp) {
        int index = heads.min();
        if (index < 0) {
            return null;
        }
        TreeSet<byte[]> cache = caches[index];
        byte[] row = cache.first();
        long timestamp = timestampOf(row);
        if (timestamp > maxTimestamp) {
            return null;
        }
        cache.pollFirst();
        delete(row);
        size--;
        refillIfEmpty(index);
        updateHead(index);
        Row key = KeyBytes.deserialize(keySerializer, row, 10, "the key of a timer in '" + name + "'");
        return new InternalTimer(timestamp, key, range.start() + index);
    }

    @Override
    public int size() {
        return size;
    }

    /** Reads the next rows of key group {@code index} from RocksDB once its cache ran empty. */
    private void refillIfEmpty(int index) {
        TreeSet<byte[]> cache = caches[index];
        if (!cache.isEmpty() || complete[index]) {
            return;
        }
        byte[] prefix = KeyBytes.keyGroupPrefix(range.start() + index);
        try (RocksIterator it = db.newIterator(column)) {
            for (it.seek(prefix); it.isValid() && KeyBytes.startsWith(it.key(), prefix); it.next()) {
                if (cache.size() == capacity) {
                    return; // more rows remain: not complete
                }
                cache.add(it.key());
            }
        }
        complete[index] = true;
    }

    private void updateHead(int index) {
        TreeSet<byte[]> cache = caches[index];
        if (cache.isEmpty()) {
            heads.clear(index);
        } else {
            heads.set(index, timestampOf(cache.first()));
        }
    }
}
