package io.weir.state.rocksdb;

import org.rocksdb.Checkpoint;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The write-back of the state caches' values and the native RocksDB checkpoint ({@code Checkpoint.createCheckpoint}:
 * memtable flush, hard links) of one incremental snapshot, each done once by whichever thread needs it first: the
 * asynchronous part before it uploads, or the task thread — the write-back before its first RocksDB read of a
 * cache miss ({@link KeyContext#beforeRead}), both before its first write to the DB ({@link KeyContext#beforeWrite})
 * after the synchronous part. Until the checkpoint exists the DB plus the taken values hold exactly the state as of
 * the barrier, since the task thread writes nothing to the DB before calling {@link #create}: the checkpoint holds
 * no record processed after the barrier, while the write-back, the flush and its fsyncs leave the synchronous
 * part whenever the task thread only uses its caches meanwhile.
 *
 * <p>Thread-safe: both methods are synchronized; a second caller waits for the first and gets its outcome (a
 * failure is rethrown to every caller, and the asynchronous part declines the checkpoint with it).
 */
final class PendingNativeCheckpoint {
    private static final Logger LOG = LoggerFactory.getLogger(PendingNativeCheckpoint.class);

    private final RocksDB db;
    private final WriteOptions writeOptions;
    private final List<WriteBackCache.PendingWrites<?>> writes;
    private final Path target;
    private final long checkpointId;
    private final String context;
    // Guarded by this.
    private boolean written;
    // Guarded by this.
    private boolean done;
    // Guarded by this: why creating failed, rethrown to every caller; null if it succeeded or was not tried.
    private IOException failure;

    /**
     * @param db the live DB
     * @param writeOptions for writing {@code writes}
     * @param writes the state caches' values as of the synchronous part, written before the checkpoint is created
     * @param target the directory RocksDB creates (must not exist)
     * @param checkpointId for messages
     * @param context job, operator and subtask, for messages
     */
    PendingNativeCheckpoint(RocksDB db, WriteOptions writeOptions, List<WriteBackCache.PendingWrites<?>> writes, Path target,
            long checkpointId, String context) {
        this.db = db;
        this.writeOptions = writeOptions;
        this.writes = List.copyOf(writes);
        this.target = target;
        this.checkpointId = checkpointId;
        this.context = context;
    }

    /** @return the directory of the native checkpoint once {@link #create} returned */
    Path target() {
        return target;
    }

    /**
     * Writes the state caches' values taken in the synchronous part to the DB, unless done already.
     *
     * @param who which thread asks (for the debug log): "task" or "async"
     * @throws IOException naming the checkpoint and subtask if RocksDB refuses them (every caller)
     */
    synchronized void writeBack(String who) throws IOException {
        if (written) {
            if (failure != null) {
                throw failure;
            }
            return;
        }
        written = true;
        if (writes.isEmpty()) {
            return;
        }
        long start = System.nanoTime();
        int n = 0;
        try (WriteBatch batch = new WriteBatch()) {
            ScratchBuffers.Output out = new ScratchBuffers.Output();
            for (WriteBackCache.PendingWrites<?> w : writes) {
                w.writeTo(batch, out);
                n += w.size();
            }
            db.write(writeOptions, batch);
            LOG.debug("Checkpoint {} of {}: {} cached values written back by the {} thread in {} us", checkpointId, context, n,
                    who, (System.nanoTime() - start) / 1000);
        } catch (RocksDBException | RuntimeException e) {
            done = true; // no checkpoint without the values
            failure = new IOException("cannot write the cached state of checkpoint " + checkpointId + " (" + context
                    + ") to RocksDB: " + e.getMessage(), e);
            throw failure;
        }
    }

    /**
     * Writes the cache values back ({@link #writeBack}), then creates the native checkpoint unless it was created
     * (or failed) already; returns once it exists.
     *
     * @param who which thread asks (for the debug log): "task" or "async"
     * @throws IOException naming the directory, checkpoint and subtask if RocksDB cannot create it (every caller)
     */
    synchronized void create(String who) throws IOException {
        writeBack(who);
        if (!done) {
            done = true;
            long start = System.nanoTime();
            try (Checkpoint checkpoint = Checkpoint.create(db)) {
                checkpoint.createCheckpoint(target.toString());
                LOG.debug("Native checkpoint {} of {} created by the {} thread in {} us", checkpointId, context, who,
                        (System.nanoTime() - start) / 1000);
            } catch (RocksDBException e) {
                failure = new IOException("cannot create the RocksDB checkpoint " + target + " of checkpoint " + checkpointId
                        + " (" + context + "): " + e.getMessage(), e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
