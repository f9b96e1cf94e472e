package io.weir.plugin.postgres;

import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.SuppressRestartsException;
import io.weir.api.operator.OperatorContext;
import io.weir.api.serialization.TypeSerializer;
import io.weir.api.sink.TwoPhaseCommittingSink;
import io.weir.api.state.ListState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Optional;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * Exactly-once rows into a PostgreSQL table (PROTOCOL.md §8) with the server's two-phase commit. One
 * database transaction per subtask per checkpoint: rows are sent in JDBC batches into it; at the
 * checkpoint's barrier ({@link #preCommit(PostgresTransaction, long)}) the last batch is sent and the
 * transaction becomes {@code PREPARE TRANSACTION 'gid'} ({@link Gid}), durable in the server and
 * invisible; {@link #commit} runs {@code COMMIT PREPARED 'gid'} once the checkpoint completed.
 *
 * <ul>
 * <li>Commit is idempotent: SQLState 42704 ("prepared transaction does not exist") for a gid the
 *     checkpoint recorded means an earlier attempt committed it already.</li>
 * <li>A commit whose connection fails is retried {@link PostgresSinkSettings#commitAttempts} times on a
 *     new connection with doubling backoff (a prepared transaction survives server restarts). The open
 *     transaction is not: losing its connection fails the task, and the restart from the checkpoint
 *     replays its rows.</li>
 * <li>{@link #abortLeftovers} rolls back the prepared transactions of this sink (gid prefix of job and
 *     operator) of this subtask and of subtasks {@code j >= parallelism, j % parallelism == subtask} that
 *     are neither recorded nor pending here: prepared by a run that failed before their checkpoint
 *     completed.</li>
 * <li>A transaction without rows prepares nothing (gid empty) and commits as a no-op.</li>
 * <li>While a transaction this instance prepared is uncommitted, new rows are not sent: one for a key that
 *     transaction holds would wait for its row lock, which only this thread's commit releases. {@link #commit}
 *     sends them. If the next barrier comes first (concurrent checkpoints, or a checkpoint that failed and is
 *     subsumed by a later one), an upsert sink does not send them to prepare them: it keeps them in the
 *     checkpoint ({@link HeldRows}, union operator state) and upserts them, in checkpoint order, when that
 *     checkpoint's notification arrives (every earlier transaction of the subtask is committed by then). After a
 *     restore, held rows of the checkpoint are upserted at the first completed checkpoint, once every recorded
 *     transaction is committed and the unrecorded ones rolled back; upserting them again is idempotent. An insert
 *     sink still sends them (an insert conflicts only through a unique index), and such a write fails after the
 *     session's {@code lock_timeout} ({@link PostgresSinkSettings#lockTimeoutMs}).</li>
 * </ul>
 *
 * <p>Two connections per subtask: one for the open transaction (autocommit off) and one with autocommit
 * on for {@code COMMIT PREPARED}/{@code ROLLBACK PREPARED}, which PostgreSQL refuses inside a
 * transaction block (SQLState 25001) — and the first connection may already be in the next one.
 *
 * <p>All methods run on the sink task's thread; the mutable fields are confined to it.
 */
public final class PostgresSink implements TwoPhaseCommittingSink<PostgresTransaction> {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresSink.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Union operator state of the held upsert rows ({@link HeldRows}) of every subtask. */
    static final String HELD_STATE = "jdbc-postgres-held-rows";

    private final PostgresSinkSettings settings;
    private final Connector connector;
    private final RowBinder binder;
    private final Schema schema;
    private final String run = HexFormat.of().toHexDigits(RANDOM.nextInt());

    // Task thread only.
    private OperatorContext context;
    private String gidPrefix;
    private Connection writeConnection;
    private PreparedStatement insert;
    private Connection controlConnection;
    /** The open transaction's handle (compared by identity), null between preCommit and beginTransaction. */
    private PostgresTransaction open;
    private long openRows;
    private int batched;
    /** Gids prepared by this instance and neither committed nor aborted. */
    private final Set<String> prepared = new HashSet<>();
    private boolean heldBeforeCommit;
    /** Upsert only (null otherwise): the held rows of every subtask; this instance writes {@link #restoredHeld} + {@link #held}. */
    private ListState<HeldRows> heldState;
    /** Upsert rows this instance held back, by checkpoint id, not yet upserted. */
    private final TreeMap<Long, HeldRows> held = new TreeMap<>();
    /** Held rows restored for this subtask, in (subtask, checkpoint) order; upserted at the first completed checkpoint. */
    private final List<HeldRows> restoredHeld = new ArrayList<>();
    /** Upsert only: rows of the open transaction kept here (not bound) while a transaction or held rows are pending. */
    private final List<Row> unsent = new ArrayList<>();
    /** Set by the first {@link #beginTransaction}: commits after it come from a checkpoint completed after the restore. */
    private boolean started;

    /**
     * @param settings the validated config
     * @param schema the schema of the rows written
     */
    public PostgresSink(PostgresSinkSettings settings, Schema schema) {
        this.settings = settings;
        this.connector = new Connector(settings);
        this.binder = new RowBinder(settings, schema);
        this.schema = schema;
    }

    /**
     * Checks that the job checkpoints, then connects (retrying an unreachable server
     * {@link PostgresSinkSettings#commitAttempts} times, e.g. while it restarts).
     *
     * @throws SuppressRestartsException if {@code execution.checkpointing.interval} is unset and
     *         {@code allow-without-checkpointing} is not true (nothing would be committed before the job
     *         ends), or the job name and operator id are too long for a gid
     * @throws Exception if the server cannot be reached or refuses the user, naming address and user
     */
    @Override
    public void open(OperatorContext context) throws Exception {
        this.context = context;
        if (context.checkpointIntervalMs().isEmpty()) {
            String message = describe() + ": execution.checkpointing.interval is not set, so this exactly-once sink would"
                    + " commit nothing until a bounded job ends (and an unbounded job never)";
            if (!settings.allowWithoutCheckpointing()) {
                throw new SuppressRestartsException(message + ". Set execution.checkpointing.interval (e.g. 1s), or set the"
                        + " sink's allow-without-checkpointing to true for a bounded job that may commit only at its end");
            }
            LOG.warn("{}; starting anyway (allow-without-checkpointing is true): every row stays in one prepared"
                    + " transaction, holding its locks, until the final checkpoint", message);
        }
        try {
            gidPrefix = Gid.prefix(context.jobName(), context.operatorId());
        } catch (IllegalArgumentException e) {
            throw new SuppressRestartsException(describe() + ": " + e.getMessage());
        }
        if (upsert()) {
            heldState = context.operatorState().getUnionListState(HELD_STATE, HeldRows.serializer(schema));
            for (HeldRows h : heldState.get()) {
                if (h.subtask() % context.parallelism() == context.subtaskIndex()) {
                    restoredHeld.add(h);
                }
            }
            restoredHeld.sort(Comparator.comparingInt(HeldRows::subtask).thenComparingLong(HeldRows::checkpointId));
            updateHeldState();
            if (!restoredHeld.isEmpty()) {
                LOG.info("{} restored {} set(s) of held upsert rows; they are upserted at the first completed checkpoint",
                        describe(), restoredHeld.size());
            }
        }
        writeConnection = connectWithRetries("write");
        try (Statement s = writeConnection.createStatement()) {
            s.execute("SET lock_timeout = " + settings.lockTimeoutMs());
        }
        writeConnection.setAutoCommit(false);
        insert = writeConnection.prepareStatement(binder.sql());
        LOG.info("{} writes to table {} at {} ({}, batches of {})", describe(), settings.table(), connector.address(),
                settings.mode().name().toLowerCase(java.util.Locale.ROOT), settings.batchSize());
    }

    /** @return the handle of a new transaction; the database transaction starts with its first row */
    @Override
    public PostgresTransaction beginTransaction() {
        if (open != null) {
            throw new IllegalStateException(describe() + " cannot begin a transaction while another is open");
        }
        open = new PostgresTransaction("", 0);
        openRows = 0;
        batched = 0;
        started = true;
        return open;
    }

    /**
     * Adds the row to the current batch, sending the batch when it holds {@code batch-size} rows.
     *
     * @throws IllegalStateException if {@code txn} is not the open transaction
     * @throws SQLException if sending fails (connection lost, constraint violated, wrong type), naming the
     *         table, subtask and job; the task fails and restarts from the latest checkpoint
     */
    @Override
    public void write(PostgresTransaction txn, Row row) throws SQLException {
        requireOpen(txn, "write to");
        openRows++;
        if (upsert() && pending()) {
            unsent.add(row); // see commit(): sent once nothing is pending, or held back at the barrier
            return;
        }
        binder.bind(insert, row);
        insert.addBatch();
        // While a transaction this instance prepared is not committed, rows stay here: one for the same key
        // (upsert, or a unique index) would wait for that transaction's row lock, which only this thread's
        // commit (in notifyCheckpointComplete) releases. commit() sends them once nothing is pending.
        if (++batched >= settings.batchSize() && prepared.isEmpty()) {
            flush();
        }
    }

    /** Not used by the runtime, which passes the checkpoint id: @throws UnsupportedOperationException always */
    @Override
    public PostgresTransaction preCommit(PostgresTransaction txn) {
        throw new UnsupportedOperationException(describe() + " names its prepared transactions after the checkpoint:"
                + " call preCommit(transaction, checkpointId)");
    }

    /**
     * Phase 1: sends the last batch and prepares the transaction as {@code weir:<job>:<op>:<subtask>:<checkpoint>:<run>}.
     *
     * @return the handle to record: the gid and the row count (gid empty if the transaction has no rows)
     * @throws SQLException if sending or preparing fails, naming the table and gid
     */
    @Override
    public PostgresTransaction preCommit(PostgresTransaction txn, long checkpointId) throws SQLException {
        requireOpen(txn, "pre-commit");
        long rows = openRows;
        open = null;
        if (rows == 0) {
            writeConnection.rollback();
            return new PostgresTransaction("", 0);
        }
        if (!unsent.isEmpty()) {
            // something was pending since this transaction began, so none of its rows was sent: keep them in the checkpoint
            HeldRows h = new HeldRows(context.subtaskIndex(), checkpointId, unsent);
            unsent.clear();
            held.put(checkpointId, h);
            updateHeldState();
            LOG.debug("{} holds back {} upsert rows at checkpoint {}: an earlier transaction is not committed yet", describe(),
                    rows, checkpointId);
            return PostgresTransaction.held(context.subtaskIndex(), checkpointId, rows);
        }
        flush();
        String gid = new Gid(gidPrefix, context.subtaskIndex(), checkpointId, run).toString();
        try (Statement s = writeConnection.createStatement()) {
            s.execute("PREPARE TRANSACTION " + literal(gid));
        } catch (SQLException e) {
            throw new SQLException(describe() + " cannot prepare transaction " + gid + " (" + rows + " rows into "
                    + settings.table() + "): " + e.getMessage(), e.getSQLState(), e);
        }
        prepared.add(gid);
        LOG.debug("{} prepared {} ({} rows) at checkpoint {}", describe(), gid, rows, checkpointId);
        return new PostgresTransaction(gid, rows);
    }

    /**
     * Phase 2: {@code COMMIT PREPARED}. A gid the server no longer knows (42704) was committed before: a
     * no-op. Connection failures are retried on a new connection.
     *
     * @throws SQLException if the commit fails otherwise, or the server stays unreachable for every
     *         attempt; the message names the gid, the address and the number of attempts
     */
    @Override
    public void commit(PostgresTransaction txn) throws SQLException, InterruptedException {
        if (started && !restoredHeld.isEmpty()) {
            upsertRestoredHeldRows(); // a checkpoint after the restore completed: every recorded transaction is committed
        }
        if (txn.isHeld()) {
            HeldRows h = held.get(checkpointOf(txn));
            if (h != null) { // null: a restored handle, whose rows come from the union state
                upsert(h);
                held.remove(h.checkpointId());
                updateHeldState();
                LOG.debug("{} upserted {} held rows of checkpoint {}", describe(), h.rows().size(), h.checkpointId());
            }
            sendUnsentIfNothingPending();
            return;
        }
        if (!txn.prepared()) {
            return;
        }
        holdBeforeFirstCommit(txn);
        boolean done = control("COMMIT PREPARED", txn.gid());
        prepared.remove(txn.gid());
        sendUnsentIfNothingPending();
        if (done) {
            LOG.debug("{} committed {} ({} rows)", describe(), txn.gid(), txn.rows());
        } else {
            LOG.debug("{} found {} committed already", describe(), txn.gid());
        }
    }

    /**
     * Drops the transaction: rolls back the open one (errors are logged: a broken connection has
     * rolled it back already) or {@code ROLLBACK PREPARED} a prepared one.
     *
     * @throws SQLException if rolling back a prepared transaction fails after the retries
     */
    @Override
    public void abort(PostgresTransaction txn) throws SQLException, InterruptedException {
        if (txn == open) {
            open = null;
            try {
                if (writeConnection != null && !writeConnection.isClosed()) {
                    writeConnection.rollback();
                }
            } catch (SQLException e) {
                LOG.debug("{} could not roll back its open transaction (the server drops it with the session): {}",
                        describe(), e.toString());
            }
            return;
        }
        if (txn.prepared()) {
            control("ROLLBACK PREPARED", txn.gid());
            prepared.remove(txn.gid());
        }
    }

    /**
     * Rolls back the prepared transactions of this sink of subtasks {@code j} with
     * {@code j % parallelism == subtaskIndex} that are neither in {@code keep} nor prepared by this
     * instance and not committed.
     *
     * @throws SQLException if listing or rolling back fails after the retries
     */
    @Override
    public void abortLeftovers(Collection<PostgresTransaction> keep) throws SQLException, InterruptedException {
        rollBackLeftovers(keep);
        if (started && !restoredHeld.isEmpty()) {
            upsertRestoredHeldRows();
        }
    }

    private void rollBackLeftovers(Collection<PostgresTransaction> keep) throws SQLException, InterruptedException {
        Set<String> keepGids = new HashSet<>(prepared);
        for (PostgresTransaction t : keep) {
            keepGids.add(t.gid());
        }
        java.util.List<String> leftovers = new java.util.ArrayList<>();
        for (String gid : preparedGidsOfThisSink()) {
            Optional<Gid> parsed = Gid.parse(gidPrefix, gid);
            if (parsed.isPresent() && parsed.get().subtask() % context.parallelism() == context.subtaskIndex()
                    && !keepGids.contains(gid)) {
                leftovers.add(gid);
            }
        }
        for (String gid : leftovers) {
            control("ROLLBACK PREPARED", gid);
        }
        if (!leftovers.isEmpty()) {
            LOG.info("{} rolled back {} leftover prepared transaction(s) of earlier attempts: {}", describe(), leftovers.size(), leftovers);
        }
    }

    @Override
    public TypeSerializer<PostgresTransaction> transactionSerializer() {
        return PostgresTransaction.SERIALIZER;
    }

    /**
     * Closes both connections. The server rolls back an open (not prepared) transaction with its
     * session; prepared ones stay for a restored sink to commit or {@link #abortLeftovers} to roll back.
     */
    @Override
    public void close() {
        closeQuietly(insert);
        closeQuietly(writeConnection);
        closeQuietly(controlConnection);
        insert = null;
        writeConnection = null;
        controlConnection = null;
    }

    /** @return whether rows of the open transaction must not be sent: a transaction or held rows are uncommitted */
    private boolean pending() {
        return !prepared.isEmpty() || !held.isEmpty() || !restoredHeld.isEmpty();
    }

    private boolean upsert() {
        return settings.mode() == PostgresSinkSettings.Mode.UPSERT;
    }

    /** Sends the rows kept back while something was pending, once nothing is. */
    private void sendUnsentIfNothingPending() throws SQLException {
        if (pending() || open == null) {
            return;
        }
        for (Row row : unsent) {
            binder.bind(insert, row);
            insert.addBatch();
            if (++batched >= settings.batchSize()) {
                flush();
            }
        }
        unsent.clear();
        if (batched >= settings.batchSize()) {
            flush(); // insert mode: the rows kept in the JDBC batch while the transaction was pending
        }
    }

    /**
     * After a restore, at the first completed checkpoint (every recorded transaction is committed by its subtask):
     * rolls back the unrecorded prepared transactions of this subtask's share, whose row locks the held rows would
     * wait for, then upserts the restored held rows in checkpoint order.
     */
    private void upsertRestoredHeldRows() throws SQLException, InterruptedException {
        rollBackLeftovers(List.of());
        for (HeldRows h : restoredHeld) {
            upsert(h);
        }
        LOG.info("{} upserted {} restored set(s) of held rows", describe(), restoredHeld.size());
        restoredHeld.clear();
        updateHeldState();
        sendUnsentIfNothingPending();
    }

    /** Upserts held rows in one transaction of the control connection, with the sink's lock timeout. */
    private void upsert(HeldRows h) throws SQLException, InterruptedException {
        Connection c = control();
        c.setAutoCommit(false);
        try (Statement s = c.createStatement(); PreparedStatement ps = c.prepareStatement(binder.sql())) {
            s.execute("SET LOCAL lock_timeout = " + settings.lockTimeoutMs());
            int n = 0;
            for (Row row : h.rows()) {
                binder.bind(ps, row);
                ps.addBatch();
                if (++n % settings.batchSize() == 0) {
                    ps.executeBatch();
                }
            }
            ps.executeBatch();
            c.commit();
        } catch (SQLException e) {
            closeQuietly(controlConnection);
            controlConnection = null;
            SQLException detail = e.getNextException() != null ? e.getNextException() : e;
            throw new SQLException(describe() + " cannot upsert the " + h.rows().size() + " rows it held back at checkpoint "
                    + h.checkpointId() + " into " + settings.table() + " at " + connector.address() + ": " + detail.getMessage()
                    + " (the task restarts from the latest checkpoint, which keeps them)", detail.getSQLState(), e);
        }
        c.setAutoCommit(true);
    }

    private void updateHeldState() {
        if (heldState != null) {
            List<HeldRows> all = new ArrayList<>(restoredHeld);
            all.addAll(held.values());
            heldState.update(all);
        }
    }

    private static long checkpointOf(PostgresTransaction heldTxn) {
        return Long.parseLong(heldTxn.gid().substring(heldTxn.gid().lastIndexOf(':') + 1));
    }

    private void flush() throws SQLException {
        if (batched == 0) {
            return;
        }
        try {
            insert.executeBatch();
        } catch (SQLException e) {
            SQLException detail = e.getNextException() != null ? e.getNextException() : e;
            String state = detail.getSQLState() == null ? "" : detail.getSQLState();
            String why = Connector.isConnectionLoss(e)
                    ? " (connection lost: the open transaction is gone; the task restarts from the latest checkpoint)"
                    : state.equals("55P03") || state.equals("40P01") ? " (a row lock held by another transaction: a prepared"
                    + " transaction of this sink's previous checkpoint that is not committed yet, or, for upsert with parallelism > 1,"
                    + " another subtask's: partition the sink's input by the key columns (\"partitioning\": \"hash\"); the task"
                    + " restarts from the latest checkpoint, whose restore commits its recorded transactions first)" : "";
            throw new SQLException(describe() + " cannot write " + batched + " rows into " + settings.table() + " at "
                    + connector.address() + ": " + detail.getMessage() + why, detail.getSQLState(), e);
        }
        batched = 0;
    }

    private java.util.List<String> preparedGidsOfThisSink() throws SQLException, InterruptedException {
        SQLException last = null;
        for (int attempt = 1; attempt <= settings.commitAttempts(); attempt++) {
            try {
                java.util.List<String> gids = new java.util.ArrayList<>();
                try (PreparedStatement s = control().prepareStatement("SELECT gid FROM pg_prepared_xacts"
                        + " WHERE database = current_database() AND starts_with(gid, ?)")) {
                    s.setString(1, gidPrefix);
                    try (ResultSet rs = s.executeQuery()) {
                        while (rs.next()) {
                            gids.add(rs.getString(1));
                        }
                    }
                }
                return gids;
            } catch (SQLException e) {
                last = e;
                if (!retryAfter(e, attempt, "listing prepared transactions")) {
                    break;
                }
            }
        }
        throw new SQLException(describe() + " cannot list its prepared transactions at " + connector.address() + ": "
                + last.getMessage(), last.getSQLState(), last);
    }

    /**
     * Runs {@code COMMIT PREPARED} or {@code ROLLBACK PREPARED} of {@code gid} on the control connection,
     * retrying connection failures.
     *
     * @return true if it was done, false if the server did not know the gid (42704)
     */
    private boolean control(String command, String gid) throws SQLException, InterruptedException {
        SQLException last = null;
        for (int attempt = 1; attempt <= settings.commitAttempts(); attempt++) {
            try (Statement s = control().createStatement()) {
                s.execute(command + " " + literal(gid));
                return true;
            } catch (SQLException e) {
                if ("42704".equals(e.getSQLState())) {
                    return false;
                }
                last = e;
                if (!retryAfter(e, attempt, command + " " + gid)) {
                    break;
                }
            }
        }
        String message = describe() + ": " + command + " '" + gid + "' failed at " + connector.address() + ": " + last.getMessage()
                + " (SQLState " + last.getSQLState() + ")";
        LOG.error(message);
        throw new SQLException(message, last.getSQLState(), last);
    }

    /** @return whether to try again: the connection was lost and attempts remain (after the backoff) */
    private boolean retryAfter(SQLException e, int attempt, String what) throws InterruptedException {
        closeQuietly(controlConnection);
        controlConnection = null;
        if (!Connector.isConnectionLoss(e) || attempt >= settings.commitAttempts()) {
            return false;
        }
        long backoff = settings.retryBackoffMs() << (attempt - 1);
        LOG.warn("{}: {} failed (attempt {} of {}): {}; trying again in {} ms on a new connection", describe(), what, attempt,
                settings.commitAttempts(), e.getMessage(), backoff);
        Thread.sleep(backoff);
        return true;
    }

    private Connection control() throws SQLException, InterruptedException {
        if (controlConnection == null) {
            controlConnection = connectWithRetries("commit");
        }
        return controlConnection;
    }

    private Connection connectWithRetries(String role) throws SQLException, InterruptedException {
        String name = "weir " + context.jobName() + "/" + context.operatorId() + "#" + context.subtaskIndex() + " " + role;
        for (int attempt = 1; ; attempt++) {
            try {
                return connector.connect(name);
            } catch (Connector.ConnectException e) {
                if (!e.transientFailure() || attempt >= settings.commitAttempts()) {
                    throw new SQLException(describe() + ": " + e.getMessage(), "08001", e);
                }
                long backoff = settings.retryBackoffMs() << (attempt - 1);
                LOG.warn("{}: {} (attempt {} of {}); trying again in {} ms", describe(), e.getMessage(), attempt,
                        settings.commitAttempts(), backoff);
                Thread.sleep(backoff);
            }
        }
    }

    private void holdBeforeFirstCommit(PostgresTransaction txn) throws InterruptedException {
        if (settings.holdBeforeCommitMs() > 0 && !heldBeforeCommit) {
            heldBeforeCommit = true;
            LOG.warn("{} holds {} ms before COMMIT PREPARED '{}' (debug.inject-delay.before-commit-prepared)", describe(),
                    settings.holdBeforeCommitMs(), txn.gid());
            Thread.sleep(settings.holdBeforeCommitMs());
        }
    }

    private void requireOpen(PostgresTransaction txn, String action) {
        if (txn != open || open == null) {
            throw new IllegalStateException(describe() + " cannot " + action + " a transaction that is not the open one");
        }
    }

    /** @return {@code s} as an SQL string literal */
    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            LOG.debug("closing {} failed: {}", c, e.toString());
        }
    }

    private String describe() {
        return context == null ? "jdbc-postgres sink" : "jdbc-postgres sink " + context.operatorId() + " subtask "
                + context.subtaskIndex() + " of job " + context.jobName();
    }
}
