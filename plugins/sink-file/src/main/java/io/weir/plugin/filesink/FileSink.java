package io.weir.plugin.filesink;

import io.weir.api.Row;
import io.weir.api.SuppressRestartsException;
import io.weir.api.Schema;
import io.weir.api.operator.OperatorContext;
import io.weir.api.serialization.TypeSerializer;
import io.weir.api.sink.TwoPhaseCommittingSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.Writer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Exactly-once JSON-lines files (PROTOCOL.md §8). A transaction is one hidden file
 * {@code .<prefix>-<subtask>-<uuid>.inprogress} in the sink directory, created on the first row;
 * {@link #preCommit} flushes, fsyncs and closes it; {@link #commit} renames it atomically to
 * {@code <prefix>-<subtask>-<uuid>.jsonl}, which makes it visible. A transaction that got no rows
 * never creates a file and commits as a no-op, so idle checkpoints leave the directory clean.
 *
 * <p>Commit is idempotent: in-progress file present → rename; gone but the final file present →
 * already committed. Both gone: a transaction without rows never had a file and commits as a no-op;
 * one with rows (the count is in the handle that {@link #preCommit} returns, so a restored sink knows
 * it too) has lost its data, and commit logs an error and throws {@link IllegalStateException}.
 *
 * <p>A fresh (not restored) run that finds committed files in its directory — the output of an
 * earlier run of the job — is refused with a {@link SuppressRestartsException}: writing everything
 * again would repeat committed output.
 *
 * <p>All methods run on the sink task's thread; the mutable fields are confined to it.
 */
public final class FileSink implements TwoPhaseCommittingSink<FileTransaction> {
    private static final Logger LOG = LoggerFactory.getLogger(FileSink.class);
    private static final String IN_PROGRESS_SUFFIX = ".inprogress";
    /** In the sink directory: the name of the job that writes it. */
    static final String OWNER_FILE = ".weir-job";

    private final FileSinkSettings settings;
    private final io.weir.api.RowJsonEncoder encoder;

    // Task thread only.
    private OperatorContext context;
    /** Transactions of this instance that are not committed or aborted yet. */
    private final Map<String, Entry> live = new HashMap<>();
    private final StringBuilder line = new StringBuilder(256);

    /**
     * @param settings the validated config
     * @param schema the schema of the rows written
     */
    public FileSink(FileSinkSettings settings, Schema schema) {
        this.settings = settings;
        this.encoder = new io.weir.api.RowJsonEncoder(schema);
    }

    /**
     * Remembers the subtask and creates the directory if missing. A fresh start (no checkpoint to
     * resume from) into a directory that already holds committed files of an earlier run is refused:
     * it would write that output again.
     *
     * @throws IOException if the directory cannot be created or listed
     * @throws SuppressRestartsException on a fresh start into a directory holding committed files,
     *         naming the directory and how to start over deliberately
     */
    @Override
    public void open(OperatorContext context) throws IOException {
        this.context = context;
        Files.createDirectories(settings.directory());
        claimDirectory();
        if (!context.isRestored()) {
            long earlier;
            try (Stream<Path> files = Files.list(settings.directory())) {
                earlier = files.filter(f -> {
                    String n = f.getFileName().toString();
                    return n.startsWith(settings.prefix() + "-") && n.endsWith(".jsonl");
                }).count();
            }
            if (earlier > 0) {
                throw new SuppressRestartsException(describe() + ": " + settings.directory() + " already holds " + earlier
                        + " committed file(s) of an earlier run, but this run has no checkpoint to resume from (the job"
                        + " finished before, or its checkpoints were removed), so it would write that output again. To"
                        + " run the job over from the start, delete " + settings.directory() + " (and the job's checkpoint"
                        + " directory under execution.checkpointing.dir); to keep that output, give the sink another path.");
            }
        }
    }

    /**
     * Makes the directory this job's: {@value #OWNER_FILE} holds the name of the job that writes it,
     * created atomically (a hard link to a complete temporary file) by the first subtask to open. A
     * directory claimed by another job is refused: two jobs writing one directory would take each
     * other's pending transactions for their own leftovers and delete them.
     *
     * @throws SuppressRestartsException if another job owns the directory, naming it
     * @throws IOException if the claim cannot be written or read
     */
    private void claimDirectory() throws IOException {
        Path owner = settings.directory().resolve(OWNER_FILE);
        if (!Files.exists(owner)) {
            Path temp = settings.directory().resolve(OWNER_FILE + "." + UUID.randomUUID() + ".tmp");
            try {
                Files.writeString(temp, context.jobName(), StandardCharsets.UTF_8);
                Files.createLink(owner, temp);
            } catch (java.nio.file.FileAlreadyExistsException claimedMeanwhile) {
                // another subtask (of this job, or another job) claimed it first: checked below
            } finally {
                Files.deleteIfExists(temp);
            }
        }
        String claimedBy = Files.readString(owner, StandardCharsets.UTF_8);
        if (!claimedBy.equals(context.jobName())) {
            throw new SuppressRestartsException(describe() + ": " + settings.directory() + " holds the output of job '"
                    + claimedBy + "' (" + owner + "); two jobs writing one directory would delete each other's pending"
                    + " transactions. Give this sink a directory of its own, or delete " + settings.directory()
                    + " if job '" + claimedBy + "' and its output are no longer needed.");
        }
    }

    /** @return a new transaction; no file is created until its first row */
    @Override
    public FileTransaction beginTransaction() {
        String name = settings.prefix() + "-" + context.subtaskIndex() + "-" + UUID.randomUUID();
        Path dir = settings.directory().toAbsolutePath();
        FileTransaction txn = new FileTransaction(dir.resolve("." + name + IN_PROGRESS_SUFFIX).toString(),
                dir.resolve(name + ".jsonl").toString(), 0);
        live.put(txn.inProgressPath(), new Entry());
        return txn;
    }

    /**
     * Appends the row as one JSON line, creating the in-progress file on the first row.
     *
     * @throws IllegalStateException if the transaction is unknown or already pre-committed
     * @throws IOException if the file cannot be created or written, naming it
     */
    @Override
    public void write(FileTransaction txn, Row row) throws IOException {
        Entry e = entry(txn, "write to");
        e.state = e.state.transition(TransactionState.WRITING, txn);
        if (e.writer == null) {
            Path file = Path.of(txn.inProgressPath());
            try {
                e.channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            } catch (IOException ex) {
                throw new IOException(describe() + " cannot create " + file + ": " + ex, ex);
            }
            e.writer = Channels.newWriter(e.channel, StandardCharsets.UTF_8.newEncoder(), 64 * 1024);
        }
        line.setLength(0);
        encoder.append(row, line);
        line.append('\n');
        e.writer.append(line);
        e.rows++;
    }

    /**
     * Phase 1: flushes, fsyncs and closes the in-progress file (it keeps its hidden name). No-op on
     * disk for a transaction without rows.
     *
     * @throws IOException if flushing or syncing fails, naming the file
     */
    @Override
    public FileTransaction preCommit(FileTransaction txn) throws IOException {
        Entry e = entry(txn, "pre-commit");
        e.state = e.state.transition(TransactionState.PRE_COMMITTED, txn);
        if (e.writer != null) {
            try {
                e.writer.flush();
                e.channel.force(true);
            } catch (IOException ex) {
                throw new IOException(describe() + " cannot flush " + txn.inProgressPath() + ": " + ex, ex);
            } finally {
                closeQuietly(e);
            }
            LOG.debug("{} pre-committed {} ({} rows)", describe(), txn.inProgressPath(), e.rows);
        }
        return new FileTransaction(txn.inProgressPath(), txn.finalPath(), e.rows);
    }

    /**
     * Phase 2: atomically renames the in-progress file to its final name. Idempotent (see the class comment).
     *
     * @throws IllegalStateException if the transaction is still being written
     * @throws SuppressRestartsException if it had rows and neither its in-progress nor its final file
     *         exists (data lost; a restart cannot help)
     * @throws IOException if the rename fails
     */
    @Override
    public void commit(FileTransaction txn) throws IOException {
        Entry e = live.get(txn.inProgressPath());
        if (e != null) {
            e.state = e.state.transition(TransactionState.COMMITTED, txn);
        }
        Path inProgress = Path.of(txn.inProgressPath());
        Path target = Path.of(txn.finalPath());
        if (Files.exists(inProgress)) {
            Files.move(inProgress, target, StandardCopyOption.ATOMIC_MOVE);
            LOG.debug("{} committed {}", describe(), target);
        } else if (Files.exists(target)) {
            LOG.debug("{} found {} already committed", describe(), target);
        } else if ((e != null ? e.rows : txn.rows()) == 0) {
            LOG.debug("{} committed empty transaction {} (no file)", describe(), txn.inProgressPath());
        } else {
            long rows = e != null ? e.rows : txn.rows();
            String message = describe() + " cannot commit " + txn.inProgressPath() + " (" + rows
                    + " rows): neither it nor " + target + " exists; the transaction's data is lost (was "
                    + settings.directory() + " deleted or changed while the job's checkpoints were kept?). Restarting"
                    + " cannot bring it back: to run the job over from the start, delete " + settings.directory()
                    + " and the job's checkpoint directory under execution.checkpointing.dir";
            LOG.error(message);
            throw new SuppressRestartsException(message);
        }
        live.remove(txn.inProgressPath());
    }

    /** Drops the transaction: closes and deletes its in-progress file if any. @throws IOException if deleting fails */
    @Override
    public void abort(FileTransaction txn) throws IOException {
        Entry e = live.remove(txn.inProgressPath());
        if (e != null) {
            e.state = e.state.transition(TransactionState.ABORTED, txn);
            closeQuietly(e);
        }
        if (Files.deleteIfExists(Path.of(txn.inProgressPath()))) {
            LOG.debug("{} aborted {}", describe(), txn.inProgressPath());
        }
    }

    /**
     * Deletes the in-progress files ({@code .<prefix>-<j>-*.inprogress}) of this subtask and of the
     * subtasks an earlier run with a higher parallelism had beyond this run's ({@code j >= parallelism}
     * and {@code j % parallelism == subtaskIndex}) that are neither in {@code keep} nor live
     * transactions of this instance. Files of the other subtasks of this run are not touched.
     *
     * @throws IOException if listing or deleting fails, naming the directory
     */
    @Override
    public void abortLeftovers(Collection<FileTransaction> keep) throws IOException {
        Set<Path> protectedFiles = new HashSet<>();
        for (FileTransaction t : keep) {
            protectedFiles.add(Path.of(t.inProgressPath()).toAbsolutePath().normalize());
        }
        for (String inProgress : live.keySet()) {
            protectedFiles.add(Path.of(inProgress).toAbsolutePath().normalize());
        }
        int deleted = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(settings.directory(), p -> isOwnLeftover(p.getFileName().toString()))) {
            for (Path file : files) {
                if (!protectedFiles.contains(file.toAbsolutePath().normalize()) && Files.deleteIfExists(file)) {
                    deleted++;
                }
            }
        } catch (IOException ex) {
            throw new IOException(describe() + " cannot remove leftover transactions in " + settings.directory() + ": " + ex, ex);
        }
        if (deleted > 0) {
            LOG.info("{} removed {} leftover in-progress files in {}", describe(), deleted, settings.directory());
        }
    }

    /** @return whether {@code name} is an in-progress file of a subtask {@code j} with {@code j % parallelism == subtaskIndex} */
    private boolean isOwnLeftover(String name) {
        String prefix = "." + settings.prefix() + "-";
        if (!name.startsWith(prefix) || !name.endsWith(IN_PROGRESS_SUFFIX)) {
            return false;
        }
        int dash = name.indexOf('-', prefix.length());
        if (dash <= prefix.length()) {
            return false;
        }
        int subtask;
        try {
            subtask = Integer.parseInt(name.substring(prefix.length(), dash));
        } catch (NumberFormatException e) {
            return false; // another sink's file whose prefix extends ours
        }
        return subtask >= 0 && subtask % context.parallelism() == context.subtaskIndex();
    }

    @Override
    public TypeSerializer<FileTransaction> transactionSerializer() {
        return FileTransaction.SERIALIZER;
    }

    /** Closes open files without deleting them; after a failure {@link #abortLeftovers} of the restored sink removes them. */
    @Override
    public void close() {
        for (Entry e : live.values()) {
            closeQuietly(e);
        }
        live.clear();
    }

    private Entry entry(FileTransaction txn, String action) {
        Entry e = live.get(txn.inProgressPath());
        if (e == null) {
            throw new IllegalStateException(describe() + " cannot " + action + " unknown or finished transaction "
                    + txn.inProgressPath());
        }
        return e;
    }

    private void closeQuietly(Entry e) {
        if (e.writer == null) {
            return;
        }
        try {
            e.writer.close();
        } catch (java.nio.channels.ClosedByInterruptException ex) {
            // the task is being cancelled (failover, shutdown): the file is left for abortLeftovers
            LOG.debug("{} closed a transaction file while cancelled: {}", describe(), ex.toString());
        } catch (IOException ex) {
            LOG.warn("{} failed to close a transaction file: {}", describe(), ex.toString());
        }
        e.writer = null;
        e.channel = null;
    }

    private String describe() {
        return context == null ? "file sink" : "file sink " + context.operatorId() + " subtask "
                + context.subtaskIndex() + " of job " + context.jobName();
    }

    /** Bookkeeping of one live transaction. Task thread only. */
    private static final class Entry {
        TransactionState state = TransactionState.OPEN;
        FileChannel channel;
        Writer writer;
        long rows;
    }
}
