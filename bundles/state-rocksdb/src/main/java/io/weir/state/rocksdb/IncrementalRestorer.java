package io.weir.state.rocksdb;

import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.SharedFileHandle;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.state.KeyGroupRange;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.CRC32;
import java.util.zip.CheckedInputStream;

/**
 * Restores incremental RocksDB snapshots into a backend's DB, with any change of parallelism, as Flink does: the
 * handle with the largest key-group overlap is {@linkplain #download downloaded} into the backend's DB directory
 * and opened there, and its foreign key groups are {@linkplain #clip deleted by range}; for each other handle
 * whose key groups overlap, its files are downloaded (shared files in parallel, every file's size and CRC32
 * checked against the handle), the old DB is opened read-only, and the rows of the overlapping key groups, a
 * contiguous key range per column family, are {@linkplain #restore copied} in. The download directories of the
 * copied handles are deleted afterwards. Task thread (runs while the backend is constructed); the
 * download pool lives only during {@link #restore}.
 */
final class IncrementalRestorer {
    /** Creates or returns the backend's column family of a state, checking its kind. */
    interface Columns {
        ColumnFamilyHandle column(String stateName, StateKind kind);
    }

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(IncrementalRestorer.class);
    private static final int BATCH_BYTES = 4 << 20;
    private static final int DOWNLOAD_THREADS = 4;

    private final Path workDirectory;
    private final KeyGroupRange range;
    private final String context;

    IncrementalRestorer(Path workDirectory, KeyGroupRange range, String context) {
        this.workDirectory = workDirectory;
        this.range = range;
        this.context = context;
    }

    /**
     * @return the handle whose key groups overlap the backend's range most (ties: the first), or null if none
     *         overlaps: its DB is the one to open in place
     */
    KeyGroupsStateHandle largestOverlap(List<KeyGroupsStateHandle> handles) {
        KeyGroupsStateHandle best = null;
        int bestOverlap = 0;
        for (KeyGroupsStateHandle h : handles) {
            int overlap = Math.min(range.end(), h.range().end()) - Math.max(range.start(), h.range().start()) + 1;
            if (overlap > bestOverlap) {
                best = h;
                bestOverlap = overlap;
            }
        }
        return best;
    }

    /**
     * Downloads every file of {@code handle} (the private ones and the shared SSTs, checked) into {@code dir}, which
     * then holds a RocksDB that can be opened where it is.
     *
     * @return the handle's format (its column families)
     * @throws IOException naming the handle's file and the subtask if a file is missing or damaged
     */
    IncrementalFormat download(KeyGroupsStateHandle handle, Path dir) throws IOException {
        try {
            Files.createDirectories(dir);
            IncrementalFormat format;
            try (DataInputStream in = new DataInputStream(handle.delegate().open())) {
                format = IncrementalFormat.read(in);
            }
            for (Map.Entry<String, byte[]> f : format.files().entrySet()) {
                Files.write(dir.resolve(f.getKey()), f.getValue());
            }
            download(handle.sharedFiles(), dir);
            return format;
        } catch (IOException | RuntimeException e) {
            throw new IOException("cannot restore incremental RocksDB state of " + context + " from "
                    + describe(handle.delegate()) + ": " + e.getMessage(), e);
        }
    }

    /**
     * Deletes, in every given column family of a DB opened in place, the key groups outside the backend's range:
     * two {@code deleteRange}s per column family (below and above the range), whatever the number of rows.
     *
     * @throws IOException naming the subtask if RocksDB fails
     */
    void clip(RocksDB db, WriteOptions writeOptions, List<ColumnFamilyHandle> columns) throws IOException {
        byte[] first = KeyBytes.keyGroupPrefix(0);
        byte[] start = KeyBytes.keyGroupPrefix(range.start());
        byte[] afterEnd = KeyBytes.keyGroupPrefix(range.end() + 1);
        byte[] beyondAll = KeyBytes.keyGroupPrefix(0x8000); // key groups are < 32768
        try {
            for (ColumnFamilyHandle c : columns) {
                if (range.start() > 0) {
                    db.deleteRange(c, writeOptions, first, start);
                }
                if (range.end() + 1 < 0x8000) {
                    db.deleteRange(c, writeOptions, afterEnd, beyondAll);
                }
            }
        } catch (RocksDBException e) {
            throw new IOException("cannot delete the foreign key groups of the RocksDB opened in place for " + context
                    + ": " + e.getMessage(), e);
        }
    }

    /**
     * Copies the rows of the key groups each handle shares with the backend's range into {@code target}.
     *
     * @throws IOException naming the handle's file and the subtask if a file is missing, has the wrong size or
     *         CRC32, or the old DB cannot be opened or read
     */
    void restore(List<KeyGroupsStateHandle> handles, RocksDB target, WriteOptions writeOptions, Columns columns)
            throws IOException {
        int n = 0;
        for (KeyGroupsStateHandle handle : handles) {
            int first = Math.max(range.start(), handle.range().start());
            int last = Math.min(range.end(), handle.range().end());
            if (first > last) {
                continue;
            }
            Path dir = workDirectory.resolve("restore-" + n++);
            try {
                IncrementalFormat format = download(handle, dir);
                copyRange(dir, format, first, last, target, writeOptions, columns);
                applyDelta(format, first, last, target, writeOptions, columns);
            } catch (IOException | RuntimeException e) {
                throw new IOException("cannot restore incremental RocksDB state of " + context + " from "
                        + describe(handle.delegate()) + ": " + e.getMessage(), e);
            } finally {
                RocksDBKeyedStateBackend.deleteRecursively(dir, context);
            }
        }
    }

    /**
     * Writes the rows of a delta snapshot ({@link IncrementalFormat#delta}) in key groups {@code first..last} over the
     * DB restored from its native checkpoint: puts, and deletes for keys the delta cleared.
     *
     * @throws IOException naming the subtask if RocksDB refuses the rows
     */
    void applyDelta(IncrementalFormat format, int first, int last, RocksDB target, WriteOptions writeOptions, Columns columns)
            throws IOException {
        if (format.delta().isEmpty()) {
            return;
        }
        int rows = 0;
        try (WriteBatch batch = new WriteBatch()) {
            for (IncrementalFormat.Delta d : format.delta()) {
                ColumnFamilyHandle into = columns.column(d.state(), format.columns().get(d.state()));
                for (int i = 0; i < d.keys().length; i++) {
                    int keyGroup = d.keyGroup(i);
                    if (keyGroup < first || keyGroup > last) {
                        continue;
                    }
                    if (d.values()[i] == null) {
                        batch.delete(into, d.keys()[i]);
                    } else {
                        batch.put(into, d.keys()[i], d.values()[i]);
                    }
                    rows++;
                    if (batch.getDataSize() > BATCH_BYTES) {
                        target.write(writeOptions, batch);
                        batch.clear();
                    }
                }
            }
            target.write(writeOptions, batch);
        } catch (RocksDBException e) {
            throw new IOException("cannot write the delta of checkpoint " + format.checkpointId() + " into the RocksDB of "
                    + context + ": " + e.getMessage(), e);
        }
        LOG.debug("Restored {} delta rows of checkpoint {} into {} (key groups {}..{})", rows, format.checkpointId(), context,
                first, last);
    }

    private void download(List<SharedFileHandle> files, Path dir) throws IOException {
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(DOWNLOAD_THREADS, Math.max(1, files.size())), r -> {
            Thread t = new Thread(r, "rocksdb-restore-download");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> downloads = new ArrayList<>();
            for (SharedFileHandle f : files) {
                downloads.add(pool.submit(() -> {
                    downloadOne(f, dir.resolve(f.name()));
                    return null;
                }));
            }
            for (Future<?> d : downloads) {
                d.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while downloading shared files", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause().getMessage(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    private static void downloadOne(SharedFileHandle f, Path to) throws IOException {
        if (f.name().contains("/") || f.name().contains("..")) {
            throw new IOException("bad shared file name '" + f.name() + "'");
        }
        CRC32 crc = new CRC32();
        long size;
        try (InputStream in = new CheckedInputStream(f.handle().open(), crc); OutputStream out = Files.newOutputStream(to)) {
            size = in.transferTo(out);
        }
        if (size != f.handle().size()) {
            throw new IOException("shared file " + describe(f.handle()) + " (" + f.name() + ") has " + size
                    + " bytes, the checkpoint recorded " + f.handle().size() + " (truncated or replaced)");
        }
        if (f.handle().crc32().isPresent() && f.handle().crc32().getAsInt() != (int) crc.getValue()) {
            throw new IOException(String.format("shared file %s (%s) is damaged: CRC32 %08X, the checkpoint recorded %08X",
                    describe(f.handle()), f.name(), (int) crc.getValue(), f.handle().crc32().getAsInt()));
        }
    }

    private void copyRange(Path dir, IncrementalFormat format, int first, int last, RocksDB target, WriteOptions writeOptions,
            Columns columns) throws IOException {
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY));
        for (String name : format.stateNames()) {
            descriptors.add(new ColumnFamilyDescriptor(RocksDBKeyedStateBackend.columnName(name)));
        }
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        byte[] from = KeyBytes.keyGroupPrefix(first);
        byte[] to = KeyBytes.keyGroupPrefix(last + 1);
        try (DBOptions options = new DBOptions(); ColumnFamilyOptions cf = new ColumnFamilyOptions();
                RocksDB old = RocksDB.openReadOnly(options, dir.toString(), descriptors, handles);
                WriteBatch batch = new WriteBatch()) {
            try {
                List<String> names = format.stateNames();
                for (int i = 0; i < names.size(); i++) {
                    ColumnFamilyHandle into = columns.column(names.get(i), format.columns().get(names.get(i)));
                    try (RocksIterator it = old.newIterator(handles.get(i + 1))) {
                        for (it.seek(from); it.isValid() && java.util.Arrays.compareUnsigned(it.key(), to) < 0; it.next()) {
                            batch.put(into, it.key(), it.value());
                            if (batch.getDataSize() > BATCH_BYTES) {
                                target.write(writeOptions, batch);
                                batch.clear();
                            }
                        }
                    }
                }
                target.write(writeOptions, batch);
            } finally {
                handles.forEach(ColumnFamilyHandle::close);
            }
        } catch (RocksDBException e) {
            throw new IOException("cannot read the RocksDB snapshot downloaded to " + dir + ": " + e.getMessage(), e);
        }
    }

    private static String describe(StreamStateHandle handle) {
        return handle instanceof StreamStateHandle.FileStateHandle f ? f.path() : "inline state (" + handle.size() + " bytes)";
    }
}
