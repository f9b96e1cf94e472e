package io.weir.state.rocksdb;

import io.weir.api.Row;
import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.StateDescriptor;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.SharedFileHandle;
import io.weir.core.state.AsyncSnapshot;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyedStateBackend;
import io.weir.core.state.KeyedStateBackendParameters;
import io.weir.core.state.KeyedTimerQueue;
import io.weir.core.storage.CheckpointStreamFactory;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Snapshot;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.stream.Stream;

/**
 * Keyed state of one operator subtask in an embedded RocksDB (PROTOCOL.md §7, docs/state-rocksdb.md).
 *
 * <h2>Layout</h2>
 * One RocksDB per backend, in its own working directory under {@code state.backend.rocksdb.localdir};
 * one column family per state ({@code "state/" + name}). Keys are {@code key group (2 bytes, big-endian) |
 * serialized key [| serialized user key]}, so a key group, and the backend's whole key-group range, is a
 * contiguous key range. Values are stored in the canonical form of their kind ({@link CanonicalFormat}).
 * The write-ahead log is off: checkpoints, not RocksDB, make state durable (as in Flink).
 *
 * <h2>Snapshots</h2>
 * <b>Full</b> (savepoints always; checkpoints unless {@code state.backend.incremental}): synchronous part writes the
 * state caches' dirty values back and takes a RocksDB snapshot (a sequence number; O(1)), held by a {@link SnapshotLease}; asynchronous part
 * ({@link CanonicalSnapshotWriter}) iterates it key group by key group and writes the backend-independent
 * format the heap backend also writes, so these restore on either backend and with any parallelism.
 * <br><b>Incremental</b> (checkpoints with {@code state.backend.incremental=true}): synchronous part only takes the
 * dirty values of the state caches ({@link WriteBackCache}); the native RocksDB checkpoint
 * ({@code Checkpoint.createCheckpoint}: flush, hard links) is made after writing them, by the asynchronous part or by
 * the task thread before it next writes to the DB, whichever comes first ({@link PendingNativeCheckpoint}); the
 * asynchronous part ({@link IncrementalSnapshotWriter}) then uploads only the SST files the last <em>completed</em> checkpoint of
 * this backend did not reference and references the others (learned from {@link #notifyCheckpointComplete}).
 * <br><b>Delta</b> (an incremental checkpoint when the DB was not written since the native checkpoint of a completed
 * incremental snapshot, and at least half of the caches' dirty values changed since the last snapshot): the synchronous
 * part copies the caches' dirty values (references, leaving them dirty); the asynchronous part
 * ({@link DeltaSnapshotWriter}) writes them with that checkpoint's private files and refers to its SST files: no
 * write-back, flush or upload of SST files.
 * Restored by {@link IncrementalRestorer}. After a restore the first checkpoint uploads every file again.
 *
 * <h2>Working directory</h2>
 * {@code db/} the live DB; {@code chk-<id>/} native checkpoints until uploaded; {@code restore-<n>/} downloads.
 *
 * <h2>Lifecycle</h2>
 * {@link #close} makes the backend unusable at once; the native resources and the working directory are
 * released when the last snapshot still being written releases its lease (never under a running iterator).
 *
 * <p>Task thread only, except the {@link AsyncSnapshot} returned by {@link #snapshot} and the lease
 * bookkeeping, which is guarded by {@link #lifecycle}.
 */
public final class RocksDBKeyedStateBackend implements KeyedStateBackend {
    private static final Logger LOG = LoggerFactory.getLogger(RocksDBKeyedStateBackend.class);
    private static final String COLUMN_PREFIX = "state/";

    private final KeyGroupRange range;
    private final TypeSerializer<Row> keySerializer;
    private final String context;
    private final Path directory;
    private final RocksDBResources resources;
    private final ColumnFamilyOptions columnOptions;
    private final WriteOptions writeOptions;
    private final RocksDB db;
    private final ColumnFamilyHandle defaultColumn;
    private final KeyContext ctx;
    private final boolean incremental;
    /** A column family of the DB: a registered state's, or one restored from an incremental snapshot. */
    private record Column(String name, StateKind kind, ColumnFamilyHandle handle) {
    }
    // Task thread only. Every state column family; insertion order = snapshot order.
    private final Map<String, Column> columns = new LinkedHashMap<>();
    // Task thread only. Registered states (their columns are in columns).
    private final Map<String, AbstractRocksState> states = new LinkedHashMap<>();
    // Task thread only. File name -> handle: the shared files of the last completed checkpoint; its SSTs are reusable.
    private Map<String, SharedFileHandle> confirmed = Map.of();
    // Task thread only. The checkpoint whose files confirmed holds (-1: none).
    private long confirmedId = -1;
    // Task thread only. Ids of snapshots taken, not aborted, and newer than confirmedId.
    private final java.util.NavigableSet<Long> taken = new java.util.TreeSet<>();
    // Written by the async part, read and cleared on the task thread: checkpoint id -> the files it refers to.
    private final ConcurrentMap<Long, NativeCheckpointFiles> pendingShared = new ConcurrentHashMap<>();
    // Task thread only. The incremental snapshot whose native checkpoint the DB equals (plus the caches' dirty
    // values) as long as ctx.writtenSinceCut is false: the last one with a native checkpoint (-1: none).
    private long cutId = -1;
    // Task thread only. The files of snapshot cutId once it completed (and nothing was taken in between): the base
    // of delta snapshots; null if none.
    private NativeCheckpointFiles base;
    // Task thread only. Restored states not yet registered; entries are removed on registration.
    private final Map<String, RestoredState> restored;
    private final Object lifecycle = new Object();
    // Guarded by lifecycle.
    private boolean closed;
    // Guarded by lifecycle: snapshots taken and not yet released.
    private int leases;
    // Guarded by lifecycle.
    private boolean disposed;

    /**
     * Creates the working directory and the DB, then reads the restore state of the range.
     *
     * @param parameters the subtask and its restore state (full and incremental snapshots, of any parallelism)
     * @param localDirectory where the working directory is created (created if missing)
     * @param incremental whether checkpoints (not savepoints) are incremental where the storage allows it
     * @throws IOException naming the file and the subtask if restore state is missing or corrupt, or naming
     *         the directory if the DB cannot be created there
     * @throws IllegalArgumentException naming the key if a {@code state.backend.rocksdb.*} option is invalid
     */
    public RocksDBKeyedStateBackend(KeyedStateBackendParameters parameters, Path localDirectory, boolean incremental)
            throws IOException {
        this.incremental = incremental;
        this.range = parameters.keyGroupRange();
        this.keySerializer = parameters.keySerializer();
        this.context = "job " + parameters.jobName() + " operator " + parameters.operatorId() + " subtask "
                + parameters.subtaskIndex();
        if (parameters.maxParallelism() > 0x8000) {
            throw new IllegalArgumentException("the RocksDB backend supports at most 32768 key groups "
                    + "(pipeline.max-parallelism), got " + parameters.maxParallelism() + " for " + context);
        }
        List<KeyGroupsStateHandle> full = parameters.restoreState().stream().filter(h -> !h.isIncremental()).toList();
        List<KeyGroupsStateHandle> incrementalHandles = parameters.restoreState().stream()
                .filter(KeyGroupsStateHandle::isIncremental).toList();
        this.restored = new LinkedHashMap<>(new CanonicalSnapshotReader(range, context).read(full));
        Files.createDirectories(localDirectory);
        String name = ("weir-rocksdb-" + parameters.jobName() + "-" + parameters.operatorId() + "-" + parameters.subtaskIndex() + "-")
                .replaceAll("[^A-Za-z0-9._-]", "_");
        this.directory = Files.createTempDirectory(localDirectory, name);
        try {
            this.resources = new RocksDBResources(parameters.config());
        } catch (RuntimeException e) {
            deleteDirectory();
            throw e;
        }
        this.columnOptions = resources.columns;
        this.ctx = new KeyContext(resources.read, keySerializer, context);
        this.writeOptions = resources.write;
        IncrementalRestorer restorer = new IncrementalRestorer(directory, range, context);
        KeyGroupsStateHandle inPlace = restorer.largestOverlap(incrementalHandles);
        Path dbDirectory = directory.resolve("db");
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, columnOptions));
        Map<String, StateKind> inPlaceColumns = Map.of();
        IncrementalFormat inPlaceFormat = null;
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        long restoreStart = System.nanoTime();
        long downloaded;
        long opened;
        try {
            if (inPlace != null) {
                inPlaceFormat = restorer.download(inPlace, dbDirectory);
                inPlaceColumns = inPlaceFormat.columns();
                inPlaceColumns.keySet().forEach(n -> descriptors.add(new ColumnFamilyDescriptor(columnName(n), columnOptions)));
            }
            downloaded = System.nanoTime();
            this.db = RocksDB.open(resources.db, dbDirectory.toString(), descriptors, handles);
            opened = System.nanoTime();
        } catch (IOException | RocksDBException e) {
            resources.close();
            deleteDirectory();
            throw e instanceof IOException io ? io
                    : new IOException("cannot open RocksDB for " + context + " in " + directory + ": " + e.getMessage(), e);
        }
        this.defaultColumn = handles.get(0);
        int i = 1;
        for (Map.Entry<String, StateKind> c : inPlaceColumns.entrySet()) {
            columns.put(c.getKey(), new Column(c.getKey(), c.getValue(), handles.get(i++)));
        }
        if (inPlace != null) {
            try {
                restorer.clip(db, writeOptions, handles.subList(1, handles.size()));
                restorer.applyDelta(inPlaceFormat, range.start(), range.end(), db, writeOptions, this::column);
                List<KeyGroupsStateHandle> others = incrementalHandles.stream().filter(h -> h != inPlace).toList();
                restorer.restore(others, db, writeOptions, this::column);
                long done = System.nanoTime();
                LOG.info("Restored RocksDB of {} (key groups {}) from {} incremental handle(s), one opened in place, in {} ms "
                        + "(download {} ms, open {} ms, clip and copy-in of the others {} ms)",
                        context, range, incrementalHandles.size(), (done - restoreStart) / 1_000_000,
                        (downloaded - restoreStart) / 1_000_000, (opened - downloaded) / 1_000_000, (done - opened) / 1_000_000);
            } catch (IOException | RuntimeException e) {
                close();
                throw e;
            }
        }
        LOG.debug("Opened RocksDB of {} (key groups {}) in {}; restored states {}", context, range, directory,
                restored.isEmpty() ? columns.keySet() : restored.keySet());
    }

    /** @return the column family name of state {@code name} */
    static byte[] columnName(String name) {
        return (COLUMN_PREFIX + name).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * @return the column family of state {@code name}, created if missing
     * @throws IllegalStateException if it exists with another kind, or RocksDB cannot create it
     */
    private ColumnFamilyHandle column(String name, StateKind kind) {
        Column existing = columns.get(name);
        if (existing != null) {
            if (existing.kind() != kind) {
                throw new IllegalStateException("state '" + name + "' of " + context + " was checkpointed as "
                        + existing.kind() + ", requested as " + kind);
            }
            return existing.handle();
        }
        ctx.beforeWrite(); // a column family the pending native checkpoint does not list would break its restore
        try {
            ColumnFamilyHandle handle = db.createColumnFamily(new ColumnFamilyDescriptor(columnName(name), columnOptions));
            columns.put(name, new Column(name, kind, handle));
            return handle;
        } catch (RocksDBException e) {
            throw new IllegalStateException("cannot create the column family of state '" + name + "' of "
                    + context + ": " + e.getMessage(), e);
        }
    }

    /** @return the DB's working directory (deleted once the backend is closed and its snapshots are written) */
    public Path directory() {
        return directory;
    }

    /**
     * @throws IllegalArgumentException if {@code keyGroup} is outside {@link #keyGroupRange()}
     */
    @Override
    public void setCurrentKey(Row key, int keyGroup) {
        if (!range.contains(keyGroup)) {
            throw new IllegalArgumentException("key group " + keyGroup + " of key " + key + " is outside " + range
                    + " of " + context);
        }
        ctx.set(key, keyGroup);
    }

    @Override
    public Row currentKey() {
        return ctx.key;
    }

    @Override
    public KeyGroupRange keyGroupRange() {
        return range;
    }

    /**
     * Returns the state named by the descriptor, creating its column family (and loading its restored
     * entries) on the first call; later calls with the same name and kind return the same object.
     *
     * @throws IllegalStateException if the name was registered, or restored, as another kind of state, if
     *         the backend is closed, or if RocksDB fails to create the column family
     * @throws UncheckedIOException naming the state and subtask if restored entries do not deserialize
     */
    @Override
    @SuppressWarnings("unchecked")
    public <S> S getState(StateDescriptor<S> descriptor) {
        checkOpen();
        StateKind kind = StateKind.of(descriptor);
        AbstractRocksState existing = states.get(descriptor.name());
        if (existing != null) {
            if (existing.kind != kind) {
                throw new IllegalStateException("state '" + descriptor.name() + "' of " + context + " is registered as "
                        + existing.kind + ", requested as " + kind);
            }
            return (S) existing;
        }
        RestoredState fromSnapshot = restored.get(descriptor.name());
        if (fromSnapshot != null && fromSnapshot.kind != kind) {
            throw new IllegalStateException("state '" + descriptor.name() + "' of " + context + " was checkpointed as "
                    + fromSnapshot.kind + ", requested as " + kind);
        }
        AbstractRocksState state = create(descriptor, column(descriptor.name(), kind));
        states.put(descriptor.name(), state);
        if (fromSnapshot != null) {
            ctx.beforeWrite();
            new RestoredStateLoader(db, writeOptions, keySerializer, range, context).load(state, descriptor, fromSnapshot);
            restored.remove(descriptor.name());
        }
        return (S) state;
    }

    /**
     * Returns the timer queue {@code name} ({@link RocksTimerQueue}: a column family of kind TIMERS), creating
     * it on the first call with its restored timers (from a canonical snapshot of either backend, or already in
     * the DB after an incremental restore); later calls return the same queue.
     *
     * @throws IllegalStateException if {@code name} is registered, or was checkpointed, as a non-timer state, or
     *         the backend is closed
     * @throws UncheckedIOException naming the state and subtask if restored timers do not deserialize
     */
    @Override
    public KeyedTimerQueue timerQueue(String name) {
        checkOpen();
        AbstractRocksState existing = states.get(name);
        if (existing != null) {
            if (existing.kind != StateKind.TIMERS) {
                throw new IllegalStateException("state '" + name + "' of " + context + " is registered as "
                        + existing.kind + ", requested as timers");
            }
            return (RocksTimerQueue) existing;
        }
        RestoredState fromSnapshot = restored.get(name);
        if (fromSnapshot != null && fromSnapshot.kind != StateKind.TIMERS) {
            throw new IllegalStateException("state '" + name + "' of " + context + " was checkpointed as "
                    + fromSnapshot.kind + ", requested as timers");
        }
        ColumnFamilyHandle handle = column(name, StateKind.TIMERS);
        if (fromSnapshot != null) {
            AbstractRocksState loading = new AbstractRocksState(name, StateKind.TIMERS, handle, db, writeOptions, ctx, context) {
            };
            ctx.beforeWrite();
            new RestoredStateLoader(db, writeOptions, keySerializer, range, context).load(loading, null, fromSnapshot);
            restored.remove(name);
        }
        RocksTimerQueue queue = new RocksTimerQueue(name, handle, db, writeOptions, ctx, keySerializer, range, context,
                resources.timerCacheSize);
        states.put(name, queue);
        if (queue.size() > 0) {
            LOG.debug("Restored {} timers '{}' of {}", queue.size(), name, context);
        }
        return queue;
    }

    private AbstractRocksState create(StateDescriptor<?> d, ColumnFamilyHandle column) {
        if (d instanceof StateDescriptor.Value<?> v) {
            return new RocksValueState<>(v.name(), v.serializer(), column, db, writeOptions, ctx, context, resources.stateCacheSize);
        } else if (d instanceof StateDescriptor.List<?> l) {
            return new RocksListState<>(l.name(), l.serializer(), column, db, writeOptions, ctx, context);
        } else if (d instanceof StateDescriptor.Map<?, ?> m) {
            return new RocksMapState<>(m.name(), m.keySerializer(), m.valueSerializer(), column, db, writeOptions, ctx, context);
        }
        return reducing((StateDescriptor.Reducing<?>) d, column);
    }

    private <T> RocksReducingState<T> reducing(StateDescriptor.Reducing<T> r, ColumnFamilyHandle column) {
        return new RocksReducingState<>(r.name(), r.reduceFunction(), r.serializer(), column, db, writeOptions, ctx, context,
                resources.stateCacheSize);
    }

    /**
     * Synchronous part: an incremental snapshot if configured, the location has shared state (a checkpoint,
     * not a savepoint) and every restored full-snapshot state was registered; else a full snapshot. Either
     * way the returned writer produces exactly the values as of this call, however the task thread changes
     * state meanwhile: the state caches' dirty values are taken now; for a full snapshot they are written
     * back at once, for an incremental one later, with the native checkpoint ({@link PendingNativeCheckpoint}), or
     * for a delta snapshot (see {@code deltaPays}) copied and carried over the last completed native checkpoint
     * ({@link DeltaSnapshotWriter}).
     *
     * @return the asynchronous part; it yields null without creating a stream if no state has an entry
     * @throws IllegalStateException if the backend is closed
     * @throws IOException naming the checkpoint and subtask if RocksDB refuses the write-back of a full snapshot
     *         (an incremental snapshot's write-back or native checkpoint fails in its asynchronous part)
     */
    @Override
    public AsyncSnapshot<KeyGroupsStateHandle> snapshot(long checkpointId, CheckpointStreamFactory streams) throws IOException {
        checkOpen();
        taken.add(checkpointId);
        ctx.createPendingCheckpoint(); // the previous snapshot's native checkpoint, if still pending
        boolean deferred = incremental && streams.supportsSharedState() && restored.isEmpty();
        if (deferred && deltaPays()) {
            return deltaSnapshot(checkpointId, streams);
        }
        List<WriteBackCache.PendingWrites<?>> writes = new ArrayList<>();
        for (AbstractRocksState s : states.values()) {
            WriteBackCache.PendingWrites<?> w = s.detachCache();
            if (w != null) {
                writes.add(w);
            }
        }
        if (!deferred && !writes.isEmpty()) {
            // a full snapshot reads a RocksDB snapshot taken now: the values must be in the DB first
            new PendingNativeCheckpoint(db, writeOptions, writes, directory, checkpointId, context).writeBack("task");
            ctx.writtenSinceCut = true;
            writes.clear();
        }
        boolean empty = writes.isEmpty() && restored.values().stream().allMatch(RestoredState::isEmpty);
        for (Column c : columns.values()) {
            if (!empty) {
                break;
            }
            empty = isEmpty(c.handle());
        }
        if (empty) {
            return () -> null;
        }
        if (deferred) {
            return incrementalSnapshot(checkpointId, streams, writes);
        }
        List<CanonicalSnapshotWriter.Picture> pictures = new ArrayList<>(columns.size() + restored.size());
        for (Column c : columns.values()) {
            pictures.add(new CanonicalSnapshotWriter.Picture(c.name(), c.kind(), c.handle(), null));
        }
        for (RestoredState r : restored.values()) {
            pictures.add(new CanonicalSnapshotWriter.Picture(r.name, r.kind, null, r));
        }
        SnapshotLease lease;
        synchronized (lifecycle) {
            leases++;
            lease = new SnapshotLease(db.getSnapshot());
        }
        return new CanonicalSnapshotWriter(checkpointId, range, keySerializer, pictures, lease, streams, context);
    }

    /**
     * Whether the next incremental snapshot can be a delta snapshot ({@link DeltaSnapshotWriter}) and is worth it:
     * the DB has not been written since the native checkpoint of a completed snapshot (so that checkpoint plus the
     * caches' dirty values is the state now), and at least half of the dirty values changed since the last
     * snapshot. Otherwise a native checkpoint, which writes the dirty values back, costs less over the next
     * checkpoints than carrying values that no longer change in every delta (Flink's changelog backend
     * materializes for the same reason).
     */
    private boolean deltaPays() {
        if (!resources.deltaCheckpoints || base == null || base.checkpointId() != cutId || ctx.writtenSinceCut || ctx.pendingCheckpoint != null) {
            return false;
        }
        long dirty = 0;
        long changed = 0;
        for (AbstractRocksState s : states.values()) {
            dirty += s.cacheDirtyCount();
            changed += s.cacheChangedSinceSnapshot();
        }
        return 2 * changed >= dirty;
    }

    private AsyncSnapshot<KeyGroupsStateHandle> deltaSnapshot(long checkpointId, CheckpointStreamFactory streams) {
        List<WriteBackCache.PendingWrites<?>> values = new ArrayList<>();
        for (AbstractRocksState s : states.values()) {
            WriteBackCache.PendingWrites<?> w = s.copyCache();
            if (w != null) {
                values.add(w);
            }
        }
        return new DeltaSnapshotWriter(checkpointId, range, base, values, streams, files -> pendingShared.put(checkpointId, files),
                context);
    }

    private AsyncSnapshot<KeyGroupsStateHandle> incrementalSnapshot(long checkpointId, CheckpointStreamFactory streams,
            List<WriteBackCache.PendingWrites<?>> writes) {
        Path target = directory.resolve("chk-" + checkpointId);
        deleteRecursively(target, context); // a retried id after a failed attempt of this backend
        // created by the async part, or by the task thread before it next writes to the DB (PendingNativeCheckpoint)
        PendingNativeCheckpoint pending = new PendingNativeCheckpoint(db, writeOptions, writes, target, checkpointId, context);
        Map<String, StateKind> kinds = new LinkedHashMap<>();
        columns.values().forEach(c -> kinds.put(c.name(), c.kind()));
        SnapshotLease lease;
        synchronized (lifecycle) {
            leases++;
            lease = new SnapshotLease(null); // keeps the DB and the working directory (and chk-<id>/ in it) until uploaded
        }
        ctx.pendingCheckpoint = pending;
        cutId = checkpointId;
        ctx.writtenSinceCut = false;
        return new IncrementalSnapshotWriter(checkpointId, range, pending, kinds, confirmed, streams,
                files -> pendingShared.put(checkpointId, files), lease, context);
    }

    /**
     * From now on the shared files of checkpoint {@code checkpointId} are reused by later incremental snapshots,
     * unless this backend took a snapshot after it (not aborted) before learning of its completion: that snapshot
     * did not reference them, and once it completes it subsumes {@code checkpointId} and the coordinator deletes
     * the files only {@code checkpointId} referenced. Then nothing is reused until the completion of a checkpoint
     * after which no snapshot was taken (one full upload). A notification older than the files in use is ignored.
     */
    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        NativeCheckpointFiles files = pendingShared.remove(checkpointId);
        pendingShared.keySet().removeIf(id -> id < checkpointId);
        if (checkpointId <= confirmedId) {
            return;
        }
        boolean laterSnapshot = taken.higher(checkpointId) != null;
        taken.headSet(checkpointId, true).clear();
        confirmedId = checkpointId;
        if (laterSnapshot) {
            LOG.debug("Checkpoint {} of {} completed after a later snapshot was taken: its files are not reused", checkpointId,
                    context);
            confirmed = Map.of();
            base = null;
        } else {
            confirmed = files == null ? Map.of() : files.shared();
            // a delta snapshot completing confirms its base again
            base = files != null && files.checkpointId() == cutId ? files : null;
        }
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
        pendingShared.remove(checkpointId);
        taken.remove(checkpointId);
    }

    private boolean isEmpty(ColumnFamilyHandle column) {
        try (RocksIterator it = db.newIterator(column)) {
            it.seekToFirst();
            return !it.isValid();
        }
    }

    private void checkOpen() {
        synchronized (lifecycle) {
            if (closed) {
                throw new IllegalStateException("keyed state backend of " + context + " is closed");
            }
        }
    }

    /**
     * Makes the backend unusable; the DB and its working directory are released now, or when the last
     * snapshot still being written finishes. Idempotent.
     */
    @Override
    public void close() {
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
            if (leases > 0) {
                LOG.debug("RocksDB of {} closes once {} snapshot(s) are written", context, leases);
                return;
            }
        }
        dispose();
    }

    private void dispose() {
        synchronized (lifecycle) {
            if (disposed) {
                return;
            }
            disposed = true;
        }
        for (Column c : columns.values()) {
            c.handle().close();
        }
        defaultColumn.close();
        db.close();
        resources.close();
        deleteDirectory();
        LOG.debug("Closed RocksDB of {} and deleted {}", context, directory);
    }

    private void deleteDirectory() {
        deleteRecursively(directory, context);
    }

    /** Deletes {@code dir} and everything in it, if it exists; a failure is logged at warn. */
    static void deleteRecursively(Path dir, String context) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            LOG.warn("Cannot delete {} of {}: {}", dir, context, e.toString());
        }
    }

    /**
     * Keeps the DB and the working directory until released: a RocksDB snapshot a {@link CanonicalSnapshotWriter}
     * reads, or (snapshot null) a native checkpoint an {@link IncrementalSnapshotWriter} uploads.
     */
    final class SnapshotLease {
        private final Snapshot snapshot;
        // Guarded by lifecycle.
        private boolean released;

        private SnapshotLease(Snapshot snapshot) {
            this.snapshot = snapshot;
        }

        Snapshot snapshot() {
            return snapshot;
        }

        RocksDB db() {
            return db;
        }

        /** Releases the snapshot; disposes the DB if the backend was closed and this was its last snapshot. Idempotent. */
        void release() {
            boolean last;
            synchronized (lifecycle) {
                if (released) {
                    return;
                }
                released = true;
                if (snapshot != null) {
                    db.releaseSnapshot(snapshot);
                    snapshot.close();
                }
                leases--;
                last = closed && leases == 0;
            }
            if (last) {
                dispose();
            }
        }
    }

    /** Used by tests: how many rows a state's column family holds (all key groups). */
    long rowCount(String stateName) {
        Column c = columns.get(stateName);
        long n = 0;
        if (c != null) {
            try (RocksIterator it = db.newIterator(c.handle())) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    n++;
                }
            }
        }
        return n;
    }
}
