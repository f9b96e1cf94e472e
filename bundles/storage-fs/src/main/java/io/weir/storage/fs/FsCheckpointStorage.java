package io.weir.storage.fs;

import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.storage.CheckpointStorage;
import io.weir.core.storage.CheckpointStreamFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checkpoint storage of one job on a (local or mounted) file system (PROTOCOL.md §7):
 * <pre>
 * &lt;dir&gt;/&lt;job&gt;/chk-&lt;id&gt;/&lt;uuid&gt;        state files, written by tasks
 * &lt;dir&gt;/&lt;job&gt;/chk-&lt;id&gt;/_metadata     written last by {@link #finalizeCheckpoint}; its presence = complete
 * &lt;dir&gt;/&lt;job&gt;/shared/chk-&lt;id&gt;/&lt;uuid&gt; shared files (incremental checkpoints) written for checkpoint id,
 *                                     deleted by the coordinator's SharedStateRegistry when unreferenced
 * &lt;dir&gt;/&lt;job&gt;/_run.lock                 locked by the running job ({@link #lockRun()})
 * &lt;target&gt;/savepoint-&lt;job&gt;-&lt;6 hex&gt;/  a savepoint ({@link #initSavepoint}): its state files and _metadata
 * </pre>
 * The {@code _metadata} format is {@link MetadataSerializer}'s (docs/checkpoint-format.md); it names the state
 * files inside its own directory by relative paths, so a checkpoint or savepoint directory can be moved.
 *
 * <p>Thread-safe without locks: apart from a concurrent map of the savepoints being taken, it holds only
 * immutable fields; concurrent calls touch different files (state files have UUID names; each checkpoint id
 * is finalised once).
 */
public final class FsCheckpointStorage implements CheckpointStorage {
    /** Name of the file that makes a checkpoint complete. */
    public static final String METADATA_FILE = "_metadata";
    /** Name the metadata is written under before the atomic rename. */
    public static final String METADATA_IN_PROGRESS_FILE = "_metadata.inprogress";
    /** Prefix of a checkpoint directory; the id follows in decimal. */
    public static final String CHECKPOINT_DIR_PREFIX = "chk-";
    /** Directory of shared state files (incremental checkpoints) in the job directory: {@code shared/chk-<id>/<uuid>}. */
    public static final String SHARED_DIR = "shared";
    /** In a final checkpoint's directory: every sink committed it and the job finished. */
    public static final String FINISHED_FILE = "_finished";

    private static final Logger LOG = LoggerFactory.getLogger(FsCheckpointStorage.class);
    private static final Pattern CHECKPOINT_DIR = Pattern.compile("chk-(\\d+)");
    /** Prefix of a savepoint record in the job directory ({@link #recordSavepoint}); the id follows in decimal. */
    public static final String SAVEPOINT_RECORD_PREFIX = "_savepoint-";
    private static final Pattern SAVEPOINT_RECORD = Pattern.compile("_savepoint-(\\d+)");
    /** Prefix of a savepoint directory; the job name, a dash and 6 random hex digits follow. */
    public static final String SAVEPOINT_DIR_PREFIX = "savepoint-";
    /** Between a directory's name and 8 random hex digits while {@link #discardCheckpoint} deletes it. */
    static final String DISCARDING_INFIX = ".discarding-";

    private final Path jobDirectory;
    private final String jobName;
    private final MetadataSerializer serializer = new MetadataSerializer();
    private final CheckpointStateVerifier verifier = new CheckpointStateVerifier();
    /** Savepoint id → its directory, from {@link #initSavepoint} until finalized or discarded. */
    private final Map<Long, Path> savepointLocations = new ConcurrentHashMap<>();

    /**
     * Creates {@code baseDirectory/jobName/} if needed.
     *
     * @param baseDirectory the checkpoint directory of all jobs
     * @param jobName the job; one path segment
     * @throws IllegalArgumentException if {@code jobName} is empty, {@code .}, {@code ..} or contains a separator
     * @throws IOException naming the directory if it cannot be created or is not writable
     */
    public FsCheckpointStorage(Path baseDirectory, String jobName) throws IOException {
        if (jobName == null || jobName.isEmpty() || jobName.equals(".") || jobName.equals("..")
                || jobName.contains("/") || jobName.contains("\\")) {
            throw new IllegalArgumentException("job name '" + jobName + "' cannot be used as a checkpoint directory name");
        }
        this.jobName = jobName;
        this.jobDirectory = baseDirectory.resolve(jobName).toAbsolutePath();
        try {
            Files.createDirectories(jobDirectory);
        } catch (IOException e) {
            throw new IOException("cannot create checkpoint directory " + jobDirectory + " of job " + jobName + ": " + e
                    + "; set execution.checkpointing.dir to a directory Weir can create and write", e);
        }
        if (!Files.isWritable(jobDirectory)) {
            throw new IOException("checkpoint directory " + jobDirectory + " of job " + jobName + " is not writable");
        }
    }

    /**
     * Takes the job's run lock, {@value FsRunLock#LOCK_FILE} in {@link #jobDirectory()} (see {@link FsRunLock}).
     *
     * @throws IOException if this or another process holds it, naming the holder's pid, or if the lock file
     *         cannot be opened or locked
     */
    @Override
    public RunLock lockRun() throws IOException {
        return FsRunLock.acquire(jobDirectory, jobName);
    }

    /** @return the absolute directory of this job's checkpoints */
    public Path jobDirectory() {
        return jobDirectory;
    }

    /** @return the directory of checkpoint {@code checkpointId} (which may not exist) */
    public Path checkpointDirectory(long checkpointId) {
        return jobDirectory.resolve(CHECKPOINT_DIR_PREFIX + checkpointId);
    }

    /** @return where checkpoint {@code checkpointId} writes its shared files: {@code <job>/shared/chk-<id>/} */
    public Path sharedDirectory(long checkpointId) {
        return jobDirectory.resolve(SHARED_DIR).resolve(CHECKPOINT_DIR_PREFIX + checkpointId);
    }

    /**
     * Deletes the file (and its {@code shared/chk-<id>/} directory once empty); a missing file is not an error.
     *
     * @throws IOException naming the file if it cannot be deleted
     */
    @Override
    public void discardSharedFile(StreamStateHandle file) throws IOException {
        if (!(file instanceof StreamStateHandle.FileStateHandle f)) {
            return; // inline bytes live in the metadata
        }
        Path path = Path.of(f.path());
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            throw new IOException("cannot delete shared state file " + path + " of job " + jobName + ": " + e, e);
        }
        deleteIfEmpty(path.getParent());
    }

    /** {@inheritDoc} <p>Deletes in {@code shared/chk-<id>/}. */
    @Override
    public void discardSharedStateOf(long checkpointId, java.util.Set<String> referenced) throws IOException {
        int removed = discardSharedExcept(sharedDirectory(checkpointId), referenced);
        if (removed > 0) {
            LOG.debug("Removed {} shared state files of checkpoint {} of job {}", removed, checkpointId, jobName);
        }
    }

    /** {@inheritDoc} <p>Deletes in every {@code shared/chk-<id>/}. */
    @Override
    public void discardUnreferencedSharedState(java.util.Set<String> referenced) throws IOException {
        Path shared = jobDirectory.resolve(SHARED_DIR);
        if (!Files.isDirectory(shared)) {
            return;
        }
        int removed = 0;
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(shared)) {
            for (Path dir : dirs) {
                removed += discardSharedExcept(dir, referenced);
            }
        } catch (IOException e) {
            throw new IOException("cannot list shared state directory " + shared + " of job " + jobName + ": " + e, e);
        }
        if (removed > 0) {
            LOG.info("Removed {} shared state files of job {} that no retained checkpoint refers to", removed, jobName);
        }
    }

    private int discardSharedExcept(Path dir, java.util.Set<String> referenced) throws IOException {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        int removed = 0;
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            entries.forEach(files::add);
        } catch (IOException e) {
            throw new IOException("cannot list shared state directory " + dir + " of job " + jobName + ": " + e, e);
        }
        for (Path file : files) {
            if (referenced.contains(file.toAbsolutePath().normalize().toString())) {
                continue;
            }
            try {
                Files.deleteIfExists(file);
                removed++;
            } catch (IOException e) {
                LOG.warn("Cannot delete unreferenced shared state file {} of job {}: {}", file, jobName, e.toString());
            }
        }
        deleteIfEmpty(dir);
        return removed;
    }

    private static void deleteIfEmpty(Path dir) {
        try {
            Files.deleteIfExists(dir);
        } catch (DirectoryNotEmptyException e) {
            // still referenced files in it
        } catch (IOException e) {
            LOG.debug("Cannot delete shared state directory {}: {}", dir, e.toString());
        }
    }

    /** Creates {@code chk-<id>/}; calling it again for the same id is harmless. */
    @Override
    public CheckpointStreamFactory initCheckpoint(long checkpointId) throws IOException {
        Path dir = checkpointDirectory(checkpointId);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new IOException("cannot create directory " + dir + " for checkpoint " + checkpointId
                    + " of job " + jobName + ": " + e, e);
        }
        return resolveCheckpoint(checkpointId);
    }

    /**
     * {@inheritDoc}
     * <p>The directory's 6 hex digits are random; a name that exists already is not reused. Directories of this job's
     * aborted savepoints that a discard renamed aside but did not delete (the process died in between, see
     * {@link #discardCheckpoint}) are deleted from the target first.
     */
    @Override
    public CheckpointStreamFactory initSavepoint(long checkpointId, String targetDirectory) throws IOException {
        Path target = Path.of(targetDirectory).toAbsolutePath().normalize();
        String prefix = SAVEPOINT_DIR_PREFIX + jobName + "-";
        Path dir = null;
        try {
            Files.createDirectories(target);
            deleteDiscardsLeftIn(target, Pattern.quote(prefix) + "[0-9a-f]{6}");
            for (int attempt = 0; dir == null; attempt++) {
                Path candidate = target.resolve(prefix
                        + String.format("%06x", ThreadLocalRandom.current().nextInt(1 << 24)));
                try {
                    dir = Files.createDirectory(candidate);
                } catch (FileAlreadyExistsException e) {
                    if (attempt >= 16) {
                        throw e;
                    }
                }
            }
        } catch (IOException e) {
            throw new IOException("cannot create a directory for savepoint " + checkpointId + " of job " + jobName
                    + " under " + target + ": " + e + "; give a savepoint directory Weir can create and write", e);
        }
        savepointLocations.put(checkpointId, dir);
        LOG.info("Savepoint {} of job {} goes to {}", checkpointId, jobName, dir);
        return resolveCheckpoint(checkpointId);
    }

    /** @return where checkpoint (or savepoint being taken) {@code checkpointId} is written */
    private Path location(long checkpointId) {
        return savepointLocations.getOrDefault(checkpointId, checkpointDirectory(checkpointId));
    }

    /**
     * Does no I/O: a missing directory is reported by
     * {@link CheckpointStreamFactory#createOutputStream()}, naming it.
     */
    @Override
    public CheckpointStreamFactory resolveCheckpoint(long checkpointId) {
        return savepointLocations.containsKey(checkpointId)
                ? new FsCheckpointStreamFactory(location(checkpointId), context(checkpointId))
                : new FsCheckpointStreamFactory(location(checkpointId), context(checkpointId), sharedDirectory(checkpointId));
    }

    /**
     * Writes {@code _metadata.inprogress}, fsyncs it, renames it atomically to {@code _metadata} and
     * fsyncs the directory, so after a crash either the complete file or no {@code _metadata} exists.
     * State files inside the checkpoint's (or savepoint's) directory are named relative to it.
     *
     * @return the checkpoint (or savepoint) directory's absolute path
     * @throws IllegalArgumentException if the metadata belongs to another job
     * @throws IOException naming the file if writing, syncing or renaming fails, or if the checkpoint
     *         already has a {@code _metadata} (a completed checkpoint is never overwritten)
     */
    @Override
    public String finalizeCheckpoint(CheckpointMetadata metadata) throws IOException {
        if (!metadata.jobName().equals(jobName)) {
            throw new IllegalArgumentException("metadata of job " + metadata.jobName() + " given to the storage of job " + jobName);
        }
        long id = metadata.checkpointId();
        Path dir = location(id);
        Path target = dir.resolve(METADATA_FILE);
        Path temp = dir.resolve(METADATA_IN_PROGRESS_FILE);
        if (Files.exists(target)) {
            throw new FileAlreadyExistsException(target.toString(), null,
                    "checkpoint " + id + " of job " + jobName + " is already complete");
        }
        byte[] bytes = serializer.serialize(metadata, dir);
        try {
            Files.createDirectories(dir);
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(bytes);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            fsyncDirectory(dir);
        } catch (IOException e) {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw new IOException("cannot write checkpoint metadata " + target + " (" + context(id) + ", "
                    + bytes.length + " bytes); the checkpoint is not complete: " + e, e);
        }
        LOG.debug("Wrote {} ({} bytes) for {}", target, bytes.length, context(id));
        if (savepointLocations.remove(id) == null) {
            forgetSavepointsBefore(id); // this checkpoint is newer than those savepoints: the restore point now
        } // else a complete savepoint is the user's: never discarded here
        return dir.toString();
    }

    /**
     * @param pointer a checkpoint directory or its {@code _metadata} file, absolute or relative to the
     *        working directory (so any job's checkpoint or savepoint can be loaded)
     * @throws IOException naming the file, the problem and that the checkpoint cannot be used, if the
     *         file is missing, unreadable, truncated, not a metadata file, of an unknown version or corrupt
     */
    @Override
    public CheckpointMetadata loadCheckpoint(String pointer) throws IOException {
        Path p = Path.of(pointer).toAbsolutePath();
        Path file = Files.isDirectory(p) ? p.resolve(METADATA_FILE) : p;
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IOException("checkpoint metadata file " + file + " does not exist (checkpoint never completed,"
                    + " or discarded); the checkpoint cannot be used", e);
        } catch (IOException e) {
            throw new IOException("checkpoint metadata file " + file + " cannot be read (" + e
                    + "); the checkpoint cannot be used", e);
        }
        return serializer.deserialize(bytes, file.toString());
    }

    /**
     * {@inheritDoc}
     * <p>Writes {@code _savepoint-<id>} in the job directory (the pointer as UTF-8) through a temporary file,
     * fsync and an atomic rename, then fsyncs the directory.
     */
    @Override
    public void recordSavepoint(long checkpointId, String pointer) throws IOException {
        Path target = jobDirectory.resolve(SAVEPOINT_RECORD_PREFIX + checkpointId);
        Path temp = jobDirectory.resolve(SAVEPOINT_RECORD_PREFIX + checkpointId + ".inprogress");
        try {
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(pointer.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            fsyncDirectory(jobDirectory);
        } catch (IOException e) {
            throw new IOException("cannot record savepoint " + checkpointId + " of job " + jobName + " in " + target + ": " + e, e);
        }
    }

    @Override
    public Optional<RecordedSavepoint> latestRecordedSavepoint() throws IOException {
        List<Long> ids = savepointRecordIds();
        if (ids.isEmpty()) {
            return Optional.empty();
        }
        long id = ids.stream().max(Long::compare).orElseThrow();
        Path record = jobDirectory.resolve(SAVEPOINT_RECORD_PREFIX + id);
        try {
            return Optional.of(new RecordedSavepoint(id, Files.readString(record, java.nio.charset.StandardCharsets.UTF_8).strip()));
        } catch (IOException e) {
            throw new IOException("cannot read savepoint record " + record + " of job " + jobName + ": " + e, e);
        }
    }

    @Override
    public void forgetSavepoints() throws IOException {
        forgetSavepointsBefore(Long.MAX_VALUE);
    }

    private void forgetSavepointsBefore(long checkpointId) {
        try {
            for (long id : savepointRecordIds()) {
                if (id < checkpointId) {
                    Files.deleteIfExists(jobDirectory.resolve(SAVEPOINT_RECORD_PREFIX + id));
                }
            }
        } catch (IOException e) {
            LOG.warn("Could not delete savepoint records of job {} older than checkpoint {} (harmless: a newer checkpoint"
                    + " is restored first)", jobName, checkpointId, e);
        }
    }

    private List<Long> savepointRecordIds() throws IOException {
        List<Long> ids = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(jobDirectory, SAVEPOINT_RECORD_PREFIX + "*")) {
            for (Path f : files) {
                Matcher m = SAVEPOINT_RECORD.matcher(f.getFileName().toString());
                if (m.matches()) {
                    ids.add(Long.parseLong(m.group(1)));
                }
            }
        } catch (NoSuchFileException e) {
            return List.of();
        }
        return ids;
    }

    /**
     * {@inheritDoc}
     * <p>Every state file must be present, of the recorded size and CRC32 ({@link CheckpointStateVerifier}); that
     * reads all of them once.
     */
    @Override
    public CheckpointMetadata loadCheckpointForRestore(String pointer) throws IOException {
        CheckpointMetadata metadata = loadCheckpoint(pointer);
        Path p = Path.of(pointer).toAbsolutePath();
        Path file = Files.isDirectory(p) ? p.resolve(METADATA_FILE) : p;
        long start = System.nanoTime();
        CheckpointStateVerifier.Summary summary = verifier.verify(metadata, file.toString());
        LOG.info("Verified the state of {} (checkpoint {} of job {}): {} streams, {} files, {} bytes read in {} ms", file.getParent(),
                metadata.checkpointId(), metadata.jobName(), summary.streams(), summary.files(), summary.bytesRead(),
                (System.nanoTime() - start) / 1_000_000);
        return metadata;
    }

    /**
     * Scans {@code chk-*} directories from the highest id down and returns the first that has a
     * {@code _metadata}; directories without one (in progress or aborted) are skipped. If that
     * {@code _metadata} does not load, an IOException says how to proceed (never a silent fallback
     * to an older checkpoint: restoring it would repeat output the newer one may have committed).
     * Reads only the {@code _metadata}, not the state files (see {@link #findRetainedCheckpoints}).
     */
    @Override
    public Optional<String> findLatestCompletedCheckpoint() throws IOException {
        return newestCompleted(1, false).stream().findFirst();
    }

    /**
     * {@inheritDoc}
     * <p>This is the restore path, so the newest must load cleanly (see {@link #findLatestCompletedCheckpoint()})
     * and its state must pass {@link CheckpointStateVerifier}: every state file present, of the recorded
     * size and CRC32, every inline stream of the recorded CRC32. That reads all of the newest checkpoint's
     * state files once. A failure is refused like an unreadable {@code _metadata}, naming the file, the
     * checkpoint and how to proceed. Older ones are only required to have a {@code _metadata} (the
     * restorer reads them; they are kept only to be subsumed).
     */
    @Override
    public List<String> findRetainedCheckpoints(int max) throws IOException {
        return newestCompleted(max, true);
    }

    private List<String> newestCompleted(int max, boolean verifyState) throws IOException {
        if (max < 1) {
            throw new IllegalArgumentException("max must be >= 1, got " + max);
        }
        List<Long> ids = idsNewestFirst();
        List<String> pointers = new ArrayList<>();
        for (int i = 0; i < ids.size() && pointers.size() < max; i++) {
            Path dir = checkpointDirectory(ids.get(i));
            if (!Files.exists(dir.resolve(METADATA_FILE))) {
                LOG.debug("Skipping {}: no {} (in progress or aborted)", dir, METADATA_FILE);
                continue;
            }
            if (pointers.isEmpty()) {
                CheckpointMetadata metadata;
                try {
                    metadata = loadCheckpoint(dir.toString());
                } catch (IOException e) {
                    throw unusableNewest(ids.get(i), dir, "cannot be read", e, olderComplete(ids.subList(i + 1, ids.size())));
                }
                if (verifyState) {
                    verifyState(ids.get(i), dir, metadata, ids.subList(i + 1, ids.size()));
                }
            }
            pointers.add(dir.toString());
        }
        return pointers;
    }

    private void verifyState(long id, Path dir, CheckpointMetadata metadata, List<Long> olderIds) throws IOException {
        long start = System.nanoTime();
        CheckpointStateVerifier.Summary summary;
        try {
            summary = verifier.verify(metadata, dir.resolve(METADATA_FILE).toString());
        } catch (IOException e) {
            throw unusableNewest(id, dir, "cannot be restored", e, olderComplete(olderIds));
        }
        LOG.info("Verified the state of checkpoint {} of job {}: {} streams, {} files, {} bytes read in {} ms{}", id, jobName,
                summary.streams(), summary.files(), summary.bytesRead(), (System.nanoTime() - start) / 1_000_000,
                summary.withoutChecksum() > 0 ? " (" + summary.withoutChecksum()
                        + " streams have no checksum, written before format version 4: size checked only)" : "");
    }

    /**
     * {@inheritDoc}
     * <p>Deletes every {@code chk-<id>} directory whose id is not in {@code keep}, with or without
     * {@code _metadata}, and every {@code chk-<id>.discarding-*} directory a discard left (see
     * {@link #discardCheckpoint}); directories the user renamed aside (e.g. {@code chk-4.corrupt}) do not match and
     * stay.
     */
    @Override
    public void discardAllExcept(java.util.Set<Long> keep) throws IOException {
        int removed = 0;
        for (long id : idsNewestFirst()) {
            if (!keep.contains(id)) {
                discardCheckpoint(id);
                removed++;
            }
        }
        removed += deleteDiscardsLeftIn(jobDirectory, CHECKPOINT_DIR.pattern());
        if (removed > 0) {
            LOG.info("Removed {} stale checkpoint directories of job {} in {} (kept {})", removed, jobName, jobDirectory,
                    new java.util.TreeSet<>(keep));
        }
    }

    /** {@inheritDoc} <p>The highest {@code chk-<id>} directory in the job's directory, with or without {@code _metadata}. */
    @Override
    public long highestCheckpointId() throws IOException {
        List<Long> ids = idsNewestFirst();
        return ids.isEmpty() ? 0 : ids.get(0);
    }

    /** @return the ids of the {@code chk-<id>} directories of this job, newest first */
    private List<Long> idsNewestFirst() throws IOException {
        List<Long> ids = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(jobDirectory)) {
            for (Path d : dirs) {
                Matcher m = CHECKPOINT_DIR.matcher(d.getFileName().toString());
                if (m.matches() && Files.isDirectory(d)) {
                    try {
                        ids.add(Long.parseLong(m.group(1)));
                    } catch (NumberFormatException e) {
                        LOG.warn("Ignoring directory {} of job {}: id out of range", d, jobName);
                    }
                }
            }
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new IOException("cannot list checkpoint directory " + jobDirectory + " of job " + jobName + ": " + e, e);
        }
        ids.sort(Comparator.reverseOrder());
        return ids;
    }

    /**
     * A {@code _metadata} is renamed into place only once complete, so an unreadable one (or one whose
     * state files are damaged) belongs to a checkpoint that completed, and whose transactions may have been committed: restoring an older
     * checkpoint would write that output again. So the newest is never skipped silently.
     */
    private IOException unusableNewest(long id, Path dir, String problem, IOException cause, Optional<Long> older) {
        String previous = older.map(o -> "To restore from checkpoint " + o + " anyway, accepting that output committed"
                + " after it is written again, move " + dir + " aside (e.g. mv " + dir + " " + dir + ".corrupt); ").orElse("");
        return new IOException("the newest completed checkpoint " + id + " of job " + jobName + " " + problem + ": "
                + cause.getMessage() + ". Weir does not fall back to an older checkpoint on its own, since checkpoint "
                + id + " may already have committed output. " + previous + "to start the job over, delete "
                + jobDirectory + " and the output its sinks committed.", cause);
    }

    /** @return the newest of {@code ids} (newest first) whose {@code _metadata} exists */
    private Optional<Long> olderComplete(List<Long> ids) {
        return ids.stream().filter(id -> Files.exists(checkpointDirectory(id).resolve(METADATA_FILE))).findFirst();
    }

    /**
     * Deletes {@code chk-<id>/} (or the directory of a savepoint being taken) and everything in it; does
     * nothing if it does not exist.
     *
     * <p>The directory is first renamed aside ({@code chk-<id>.discarding-<8 hex>}, atomically) and then deleted.
     * A task whose asynchronous part is still writing to an aborted checkpoint creates its files by the directory's
     * path, so after the rename it cannot create one there any more (it fails naming the missing directory), and the
     * files it created before are in the renamed directory when the deletion lists it. Deleting in place raced such
     * a task: a file created between the listing and the removal of the directory left the directory behind.
     * A directory renamed aside but not deleted (the process died in between) is deleted by
     * {@link #discardAllExcept}.
     *
     * @throws IOException naming the directory and the checkpoint if it cannot be renamed or deleted
     */
    @Override
    public void discardCheckpoint(long checkpointId) throws IOException {
        Path savepoint = savepointLocations.remove(checkpointId);
        Path dir = savepoint != null ? savepoint : checkpointDirectory(checkpointId);
        Path aside = dir.resolveSibling(dir.getFileName() + DISCARDING_INFIX
                + String.format("%08x", ThreadLocalRandom.current().nextInt()));
        try {
            Files.move(dir, aside, StandardCopyOption.ATOMIC_MOVE);
        } catch (NoSuchFileException e) {
            return;
        } catch (IOException e) {
            throw new IOException("cannot discard " + dir + " (" + context(checkpointId) + "): cannot rename it to "
                    + aside.getFileName() + ": " + e, e);
        }
        deleteTree(aside, context(checkpointId));
        LOG.debug("Discarded {}", dir);
    }

    /**
     * Deletes the directories in {@code parent} named {@code <name>.discarding-<8 hex>} where {@code <name>} matches
     * {@code namePattern}: discards that renamed a directory aside and did not delete it.
     *
     * @param namePattern a regular expression for the directory's name before {@link #DISCARDING_INFIX}
     * @return how many were deleted; 0 if {@code parent} does not exist
     * @throws IOException naming the directory if one cannot be deleted
     */
    private int deleteDiscardsLeftIn(Path parent, String namePattern) throws IOException {
        Pattern leftover = Pattern.compile(namePattern + Pattern.quote(DISCARDING_INFIX) + "[0-9a-f]{8}");
        int deleted = 0;
        try (DirectoryStream<Path> aside = Files.newDirectoryStream(parent,
                d -> leftover.matcher(d.getFileName().toString()).matches())) {
            for (Path d : aside) {
                deleteTree(d, "job " + jobName + ", a discard that did not finish");
                deleted++;
            }
        } catch (NoSuchFileException e) {
            // no such directory: nothing to remove
        }
        return deleted;
    }

    /** Deletes {@code dir} and everything in it; files that vanish meanwhile are not an error. */
    private static void deleteTree(Path dir, String context) throws IOException {
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    throw e;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    if (e != null) {
                        throw e;
                    }
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new IOException("cannot delete " + dir + " (" + context + "): " + e, e);
        }
    }

    /**
     * {@inheritDoc}
     * <p>Creates an empty {@code chk-<id>/_finished} and fsyncs the directory, so the record goes
     * when the checkpoint is discarded.
     */
    @Override
    public void markFinished(long checkpointId) throws IOException {
        Path dir = checkpointDirectory(checkpointId);
        if (!Files.exists(dir.resolve(METADATA_FILE))) {
            throw new IOException("cannot mark checkpoint " + checkpointId + " of job " + jobName + " finished: "
                    + dir.resolve(METADATA_FILE) + " does not exist");
        }
        try {
            Files.write(dir.resolve(FINISHED_FILE), new byte[0]);
            fsyncDirectory(dir);
        } catch (IOException e) {
            throw new IOException("cannot write " + dir.resolve(FINISHED_FILE) + " (job " + jobName + "): " + e, e);
        }
    }

    @Override
    public boolean isMarkedFinished(long checkpointId) {
        return Files.exists(checkpointDirectory(checkpointId).resolve(FINISHED_FILE));
    }

    private static void fsyncDirectory(Path dir) throws IOException {
        // Makes the rename durable (POSIX); the directory is opened read-only, which Linux allows.
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    private String context(long checkpointId) {
        return "job " + jobName + " checkpoint " + checkpointId;
    }

    @Override
    public String toString() {
        return "FsCheckpointStorage[" + jobDirectory + "]";
    }
}
