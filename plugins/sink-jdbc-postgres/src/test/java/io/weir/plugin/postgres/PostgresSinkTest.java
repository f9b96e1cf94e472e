package io.weir.plugin.postgres;

import io.weir.api.operator.OperatorContext;
import io.weir.api.state.KeyedStateStore;
import io.weir.api.testing.InMemoryOperatorStateStore;
import io.weir.runtime.operators.DefaultOperatorContext;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.SuppressRestartsException;
import io.weir.api.operator.Output;
import io.weir.api.plugin.PluginConfig;
import io.weir.plugin.postgres.testing.PostgresTestServer;
import io.weir.runtime.operators.TwoPhaseCommitSinkOperator;
import io.weir.state.heap.operator.HeapOperatorStateBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code jdbc-postgres} sink driven directly (and through the runtime's
 * {@link TwoPhaseCommitSinkOperator}) against a real PostgreSQL server: visibility only after commit,
 * idempotent and out-of-order commits, leftovers after a rescale, connection loss, and bad input.
 */
class PostgresSinkTest {
    private static final Schema SCHEMA = Schema.builder().field("id", FieldType.LONG).field("origin", FieldType.STRING).build();
    private static final Output NO_OUTPUT = new Output() {
        @Override
        public void collect(Row row) {
            throw new AssertionError("a sink emits nothing");
        }
    };
    private static PostgresTestServer db;
    private final List<PostgresSink> sinks = new ArrayList<>();

    @TempDir
    Path tmp;

    @BeforeAll
    static void startServer() throws Exception {
        db = PostgresTestServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (db != null) {
            db.close();
        }
    }

    @BeforeEach
    void createTable() throws Exception {
        db.reset();
        db.execute("CREATE TABLE out (id bigint, origin text)", "CREATE TABLE agg (id bigint PRIMARY KEY, origin text)");
    }

    @AfterEach
    void closeSinks() {
        sinks.forEach(PostgresSink::close);
    }

    @Test
    void rowsBecomeVisibleOnlyWhenTheirPreparedTransactionIsCommitted() throws Exception {
        PostgresSink sink = open(settings("insert", 2), 0, 1, false);
        PostgresTransaction t1 = sink.beginTransaction();
        for (long i = 1; i <= 5; i++) { // batch size 2: two batches go to the server before the barrier
            sink.write(t1, row(i, "DTW"));
        }
        PostgresTransaction p1 = sink.preCommit(t1, 7);
        assertThat(p1.rows()).isEqualTo(5);
        assertThat(p1.gid()).matches("weir:test-job:out:0:7:[0-9a-f]{8}");
        assertThat(db.preparedGids()).containsExactly(p1.gid());
        PostgresTransaction t2 = sink.beginTransaction();
        sink.write(t2, row(6, "LAS"));
        assertThat(count("out")).as("prepared, not committed").isZero();

        sink.commit(p1);
        assertThat(count("out")).isEqualTo(5);
        assertThat(db.preparedGids()).isEmpty();
        sink.commit(p1); // again, e.g. after a restore: 42704, a no-op
        assertThat(count("out")).isEqualTo(5);
    }

    @Test
    void upsertReplacesTheRowWithTheSameKey() throws Exception {
        PostgresSink sink = open(new PostgresSinkSettings(db.url(), PostgresTestServer.USER, null, "agg",
                PostgresSinkSettings.Mode.UPSERT, List.of("id"), 10, 5, 3, 10, false, 0, 30_000), 0, 1, false);
        PostgresTransaction t = sink.beginTransaction();
        sink.write(t, row(1, "A"));
        sink.write(t, row(2, "B"));
        sink.write(t, row(1, "C"));
        sink.commit(sink.preCommit(t, 1));
        assertThat(db.queryLong("SELECT count(*) FROM agg")).isEqualTo(2);
        assertThat(db.queryLong("SELECT count(*) FROM agg WHERE id = 1 AND origin = 'C'")).isEqualTo(1);
    }

    /**
     * The next checkpoint's upsert of a key that the previous, prepared transaction holds must not reach
     * the server before that transaction is committed: it would wait for the row lock, which only this
     * (the task's) thread could release by committing. Without holding the rows back, the write fails
     * after lock-timeout-ms (here 1 s; without the timeout it would wait forever).
     */
    @Test
    void rowsOfTheNextTransactionWaitUntilThePreparedOneIsCommittedInsteadOfBlockingOnItsLocks() throws Exception {
        PostgresSink sink = open(new PostgresSinkSettings(db.url(), PostgresTestServer.USER, null, "agg",
                PostgresSinkSettings.Mode.UPSERT, List.of("id"), 1, 5, 3, 10, false, 0, 1000), 0, 1, false);
        PostgresTransaction t1 = sink.beginTransaction();
        sink.write(t1, row(1, "first"));
        PostgresTransaction p1 = sink.preCommit(t1, 1);
        PostgresTransaction t2 = sink.beginTransaction();
        sink.write(t2, row(1, "second")); // batch size 1, but held back: p1 holds the row lock of id 1
        sink.write(t2, row(2, "other"));

        sink.commit(p1); // sends the held rows
        assertThat(db.queryLong("SELECT count(*) FROM agg WHERE id = 1 AND origin = 'first'")).isEqualTo(1);
        sink.commit(sink.preCommit(t2, 2));
        assertThat(db.queryLong("SELECT count(*) FROM agg WHERE id = 1 AND origin = 'second'")).isEqualTo(1);
        assertThat(db.queryLong("SELECT count(*) FROM agg")).isEqualTo(2);
    }

    /**
     * Concurrent checkpoints: the barrier of checkpoint 2 arrives while checkpoint 1's transaction, which holds the
     * row lock of id 1, is prepared and uncommitted. Sending checkpoint 2's upsert of id 1 to prepare it would wait
     * for that lock, which only this thread can release: before the fix the pre-commit failed after lock-timeout-ms
     * (here 1 s) and the task restarted. The rows are kept in the checkpoint instead and upserted, in checkpoint
     * order, when checkpoint 2 is notified; rows of checkpoint 3 wait until then.
     */
    @Test
    void upsertRowsOfACheckpointWhoseBarrierCameBeforeThePreviousCommitAreHeldInTheCheckpointNotBlocked() throws Exception {
        InMemoryOperatorStateStore state = InMemoryOperatorStateStore.empty();
        PostgresSink sink = open(upsertSettings(1, 1000), new TestContext("test-job", "out", 0, 1, false, state));
        PostgresTransaction t1 = sink.beginTransaction();
        sink.write(t1, row(1, "first"));
        PostgresTransaction p1 = sink.preCommit(t1, 1);
        PostgresTransaction t2 = sink.beginTransaction();
        sink.write(t2, row(1, "second"));
        sink.write(t2, row(2, "other"));
        PostgresTransaction p2 = sink.preCommit(t2, 2); // p1 is not committed yet
        assertThat(p2.rows()).isEqualTo(2);
        assertThat(db.preparedGids()).containsExactly(p1.gid());
        assertThat(state.snapshot()).containsKey("jdbc-postgres-held-rows");
        PostgresTransaction t3 = sink.beginTransaction();
        sink.write(t3, row(1, "third"));

        sink.commit(p1);
        assertThat(originOf(1)).isEqualTo("first");
        assertThat(originOf(2)).isNull();
        sink.commit(p2); // upserts the held rows, then sends t3's
        assertThat(originOf(1)).isEqualTo("second");
        assertThat(originOf(2)).isEqualTo("other");
        sink.commit(sink.preCommit(t3, 3));
        assertThat(originOf(1)).isEqualTo("third");
        assertThat(db.preparedGids()).isEmpty();
    }

    /**
     * A restore from a checkpoint that recorded held rows (and the prepared transaction before them) upserts them
     * after the recorded transaction is committed and the unrecorded one (prepared after the checkpoint, holding
     * the same key) rolled back, at the first checkpoint completed after the restore; the restored run's own rows
     * of that key wait until then, so the table ends with the latest value.
     */
    @Test
    void heldRowsRecordedInTheCheckpointAreUpsertedAfterARestoreInOrder() throws Exception {
        InMemoryOperatorStateStore state = InMemoryOperatorStateStore.empty();
        PostgresSink crashed = open(upsertSettings(1, 1000), new TestContext("test-job", "out", 0, 1, false, state));
        PostgresTransaction t1 = crashed.beginTransaction();
        crashed.write(t1, row(1, "first"));
        PostgresTransaction p1 = crashed.preCommit(t1, 1);
        PostgresTransaction t2 = crashed.beginTransaction();
        crashed.write(t2, row(1, "second"));
        PostgresTransaction p2 = crashed.preCommit(t2, 2);
        Map<String, byte[]> checkpoint2 = state.snapshot(); // records p1 and p2
        crashed.commit(p1);
        crashed.commit(p2); // notified, then the next checkpoint's transaction is prepared and the process dies
        PostgresTransaction t3 = crashed.beginTransaction();
        crashed.write(t3, row(1, "lost-after-checkpoint"));
        crashed.preCommit(t3, 3);
        crashed.close();
        assertThat(originOf(1)).isEqualTo("second");

        PostgresSink restored = open(upsertSettings(1, 1000),
                new TestContext("test-job", "out", 0, 1, true, InMemoryOperatorStateStore.restoredFrom(checkpoint2)));
        restored.commit(p1); // the runtime commits the recorded handles first (a no-op here)
        restored.commit(p2);
        PostgresTransaction r1 = restored.beginTransaction();
        restored.write(r1, row(1, "replayed"));
        PostgresTransaction r1Recorded = restored.preCommit(r1, 3); // the restored held rows are still pending: held too
        restored.commit(r1Recorded); // first completed checkpoint: roll back t3, upsert "second", then "replayed"
        restored.abortLeftovers(List.of());
        assertThat(originOf(1)).isEqualTo("replayed");
        assertThat(db.preparedGids()).isEmpty();
    }

    @Test
    void emptyTransactionsPrepareNothingAndCommitAsNoOps() throws Exception {
        PostgresSink sink = open(settings("insert", 10), 0, 1, false);
        PostgresTransaction p = sink.preCommit(sink.beginTransaction(), 1);
        assertThat(p.prepared()).isFalse();
        assertThat(db.preparedGids()).isEmpty();
        sink.commit(p);
        assertThat(count("out")).isZero();
    }

    /**
     * Concurrent checkpoints (max-concurrent 2) with notifications out of order, driven through the
     * runtime's sink operator because the engine cannot force the order: checkpoints 1 and 2 are both
     * pre-committed, 2 is notified first (commits both), then 1 late and 2 again (no-ops).
     */
    @Test
    void outOfOrderLateAndDuplicateNotificationsCommitEveryCheckpointOnce() throws Exception {
        PostgresSink sink = new PostgresSink(settings("insert", 10), SCHEMA);
        TwoPhaseCommitSinkOperator<PostgresTransaction> op = new TwoPhaseCommitSinkOperator<>(sink);
        op.initializeState(new DefaultOperatorContext("test-job", "out", 0, 1, false,
                new HeapOperatorStateBackend("out", List.of()), null, OptionalLong.of(100)));
        try {
            op.processElement(row(1, "cp1"), NO_OUTPUT);
            op.prepareSnapshotPreBarrier(1, NO_OUTPUT);
            op.processElement(row(2, "cp2"), NO_OUTPUT);
            op.processElement(row(3, "cp2"), NO_OUTPUT);
            op.prepareSnapshotPreBarrier(2, NO_OUTPUT);
            op.processElement(row(4, "cp3"), NO_OUTPUT);
            op.prepareSnapshotPreBarrier(3, NO_OUTPUT);
            assertThat(db.preparedGids()).hasSize(3);

            op.notifyCheckpointComplete(2);
            assertThat(ids()).containsExactly(1L, 2L, 3L);
            op.notifyCheckpointComplete(1);
            op.notifyCheckpointComplete(2);
            assertThat(ids()).containsExactly(1L, 2L, 3L);
            assertThat(db.preparedGids()).singleElement().asString().contains(":0:3:");
            op.notifyCheckpointComplete(3);
            assertThat(ids()).containsExactly(1L, 2L, 3L, 4L);
            assertThat(db.preparedGids()).isEmpty();
        } finally {
            op.close();
        }
    }

    /**
     * Restore with parallelism 4 → 2: the recorded transactions of checkpoint 2 are committed by whichever
     * new subtask they are dealt to; the ones prepared for checkpoint 3, which never completed, are rolled
     * back by the new subtask {@code j % 2} of each old subtask {@code j}; another sink's gids are untouched.
     */
    @Test
    void afterARescaleRecordedTransactionsAreCommittedAndEveryUnrecordedOneOfThisSinkRolledBack() throws Exception {
        List<PostgresTransaction> recorded = new ArrayList<>();
        for (int s = 0; s < 4; s++) {
            PostgresSink old = open(settings("insert", 10), s, 4, false);
            PostgresTransaction t = old.beginTransaction();
            old.write(t, row(s, "cp2"));
            recorded.add(old.preCommit(t, 2));
            PostgresTransaction leftover = old.beginTransaction();
            old.write(leftover, row(100 + s, "cp3"));
            old.preCommit(leftover, 3); // the process dies before checkpoint 3 completes
        }
        PostgresSink other = open(settings("insert", 10), 0, 1, false, "test-job", "out2");
        PostgresTransaction foreign = other.beginTransaction();
        other.write(foreign, row(999, "other sink"));
        PostgresTransaction foreignPrepared = other.preCommit(foreign, 3);
        assertThat(db.preparedGids()).hasSize(9);

        PostgresSink new0 = open(settings("insert", 10), 0, 2, true);
        PostgresSink new1 = open(settings("insert", 10), 1, 2, true);
        // round-robin dealing: subtask 0 gets recorded 0 and 2, subtask 1 gets 1 and 3
        new0.commit(recorded.get(0));
        new0.commit(recorded.get(2));
        new1.commit(recorded.get(1));
        new1.commit(recorded.get(3));
        new0.abortLeftovers(List.of());
        new1.abortLeftovers(List.of());

        assertThat(ids()).containsExactly(0L, 1L, 2L, 3L);
        assertThat(db.preparedGids()).containsExactly(foreignPrepared.gid());
    }

    @Test
    void aCommitWhoseServerRestartedIsRetriedOnANewConnection() throws Exception {
        PostgresSink sink = open(settings("insert", 10), 0, 1, false);
        PostgresTransaction t = sink.beginTransaction();
        sink.write(t, row(1, "A"));
        PostgresTransaction p = sink.preCommit(t, 1);
        PostgresTransaction warmUp = sink.beginTransaction();
        sink.write(warmUp, row(2, "B"));
        sink.commit(sink.preCommit(warmUp, 2)); // opens the control connection, which the restart then cuts
        db.restart();

        sink.commit(p);
        assertThat(ids()).containsExactly(1L, 2L);
        PostgresTransaction lost = sink.beginTransaction();
        assertThatThrownBy(() -> {
            sink.write(lost, row(3, "C"));
            sink.preCommit(lost, 3);
        }).as("the open transaction's session is gone").isInstanceOf(SQLException.class)
                .hasMessageContaining("subtask 0 of job test-job");
    }

    @Test
    void withoutCheckpointingTheSinkRefusesToStartUnlessAllowed() throws Exception {
        PostgresSink sink = new PostgresSink(settings("insert", 10), SCHEMA);
        sinks.add(sink);
        assertThatThrownBy(() -> sink.open(new DefaultOperatorContext("test-job", "out", 0, 1, false, null, null, OptionalLong.empty())))
                .isInstanceOf(SuppressRestartsException.class)
                .hasMessageContaining("execution.checkpointing.interval is not set")
                .hasMessageContaining("allow-without-checkpointing");
        PostgresSink allowed = new PostgresSink(new PostgresSinkSettings(db.url(), PostgresTestServer.USER, null, "out",
                PostgresSinkSettings.Mode.INSERT, List.of(), 10, 5, 3, 10, true, 0, 30_000), SCHEMA);
        sinks.add(allowed);
        allowed.open(new DefaultOperatorContext("test-job", "out", 0, 1, false, null, null, OptionalLong.empty()));
    }

    @Test
    void anUnreachableServerIsReportedBeforeTheJobStartsNamingHostAndPort() throws Exception {
        int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        assertThatThrownBy(() -> validate(Map.of("url", "jdbc:postgresql://127.0.0.1:" + closedPort + "/postgres",
                "user", "weir", "table", "out", "connect-timeout-s", 2L)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("operators[2].config.url failed: cannot connect to PostgreSQL at 127.0.0.1:" + closedPort);
    }

    @Test
    void aMissingTableOrColumnIsNamed() {
        assertThatThrownBy(() -> validate(Map.of("url", db.url(), "user", "weir", "table", "nosuch")))
                .hasMessageStartingWith("operators[2].config.table 'nosuch' does not exist in database 'postgres' at 127.0.0.1:" + db.port());
        assertThatThrownBy(() -> validate(Map.of("url", db.url(), "user", "weir", "table", "out"),
                Schema.builder().field("id", FieldType.LONG).field("delay", FieldType.DOUBLE).build()))
                .hasMessageStartingWith("operators[2].config.table 'out' has no column delay for the row field(s) of that name; its columns: [id, origin]");
        assertThatThrownBy(() -> validate(Map.of("url", db.url(), "user", "weir", "table", "out", "mode", "upsert", "key", List.of("id"))))
                .hasMessageContaining("key [id] is not the column set of a primary key or unique index of table 'out'");
    }

    @Test
    void wrongCredentialsNameTheUserButNeverThePassword() throws Exception {
        db.createPasswordUser("app");
        Path pwFile = tmp.resolve("pw");
        Files.writeString(pwFile, PostgresTestServer.PASSWORD + "\n");
        validate(Map.of("url", db.url(), "user", "app", "table", "out", "password-file", pwFile.toString()));
        validate(Map.of("url", db.url(), "user", "app", "table", "out", "password-env", "PGPW"));

        assertThatThrownBy(() -> validate(Map.of("url", db.url(), "user", "app", "table", "out", "password", "wrong-pw-123")))
                .hasMessageStartingWith("operators[2].config.user failed: PostgreSQL at 127.0.0.1:" + db.port() + " refused user 'app'")
                .hasMessageNotContaining("wrong-pw-123");
        assertThatThrownBy(() -> validate(Map.of("url", db.url(), "user", "app", "table", "out", "password-env", "UNSET_VAR")))
                .hasMessage("operators[2].config.password-env names environment variable UNSET_VAR, which is not set");
        assertThat(new PostgresSinkSettings(db.url(), "app", "wrong-pw-123", "out", PostgresSinkSettings.Mode.INSERT, List.of(),
                1, 1, 1, 0, false, 0, 30_000).toString()).doesNotContain("wrong-pw-123").contains("password=****");
        assertThat(new PostgresSinkSettings("jdbc:postgresql://127.0.0.1:1/db?password=url-pw-456", "app", null, "out",
                PostgresSinkSettings.Mode.INSERT, List.of(), 1, 1, 1, 0, false, 0, 30_000).toString()).doesNotContain("url-pw-456");
    }

    @Test
    void badSettingsNameTheField() {
        assertThatThrownBy(() -> validate(Map.of("url", "jdbc:mysql://x/y", "user", "weir", "table", "out")))
                .hasMessageStartingWith("operators[2].config.url must be a PostgreSQL JDBC URL");
        assertThatThrownBy(() -> validate(Map.of("url", db.url(), "user", "weir", "table", "out", "mode", "merge")))
                .hasMessage("operators[2].config.mode must be insert or upsert, got 'merge'");
        assertThatThrownBy(() -> validate(Map.of("url", db.url(), "user", "weir", "table", "out", "mode", "upsert")))
                .hasMessageStartingWith("operators[2].config.key is required with mode upsert");
        assertThatThrownBy(() -> validate(Map.of("url", db.url(), "user", "weir", "table", "out", "batch-size", 0L)))
                .hasMessage("operators[2].config.batch-size must be between 1 and 100000, got 0");
    }

    @Test
    void gidsOfOtherSinksWhosePrefixExtendsOursAreNotParsedAsOurs() {
        String prefix = Gid.prefix("job", "out");
        assertThat(Gid.parse(prefix, "weir:job:out:3:17:0a1b2c3d")).hasValue(new Gid(prefix, 3, 17, "0a1b2c3d"));
        assertThat(Gid.parse(prefix, "weir:job:out:x:3:17:0a1b2c3d")).isEmpty();
        assertThat(Gid.parse(prefix, "weir:job:out2:3:17:0a1b2c3d")).isEmpty();
        assertThatThrownBy(() -> Gid.prefix("j".repeat(100), "o".repeat(100))).hasMessageContaining("too long");
    }

    private void validate(Map<String, Object> values) {
        validate(values, SCHEMA);
    }

    private void validate(Map<String, Object> values, Schema schema) {
        PluginConfig config = new PluginConfig("operators[2].config", values, tmp);
        PostgresSinkSettings settings = PostgresSinkSettings.from(config, schema,
                name -> name.equals("PGPW") ? PostgresTestServer.PASSWORD : null);
        DatabaseCheck.check(config, settings, schema);
    }

    private PostgresSinkSettings settings(String mode, int batchSize) {
        return new PostgresSinkSettings(db.url(), PostgresTestServer.USER, null, "out",
                PostgresSinkSettings.Mode.valueOf(mode.toUpperCase()), List.of(), batchSize, 5, 3, 50, false, 0, 30_000);
    }

    private PostgresSink open(PostgresSinkSettings settings, int subtask, int parallelism, boolean restored) throws Exception {
        return open(settings, subtask, parallelism, restored, "test-job", "out");
    }

    private PostgresSink open(PostgresSinkSettings settings, int subtask, int parallelism, boolean restored, String job,
            String operator) throws Exception {
        return open(settings, new TestContext(job, operator, subtask, parallelism, restored, InMemoryOperatorStateStore.empty()));
    }

    private PostgresSink open(PostgresSinkSettings settings, TestContext context) throws Exception {
        PostgresSink sink = new PostgresSink(settings, SCHEMA);
        sinks.add(sink);
        sink.open(context);
        return sink;
    }

    private PostgresSinkSettings upsertSettings(int batchSize, long lockTimeoutMs) {
        return new PostgresSinkSettings(db.url(), PostgresTestServer.USER, null, "agg", PostgresSinkSettings.Mode.UPSERT,
                List.of("id"), batchSize, 5, 3, 10, false, 0, lockTimeoutMs);
    }

    private static String originOf(long id) throws SQLException {
        try (var c = db.connect(); var s = c.prepareStatement("SELECT origin FROM agg WHERE id = ?")) {
            s.setLong(1, id);
            try (var rs = s.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /** A sink subtask's context: checkpoints every 100 ms, operator state in memory (snapshot and restore by hand). */
    private record TestContext(String jobName, String operatorId, int subtaskIndex, int parallelism, boolean isRestored,
            InMemoryOperatorStateStore operatorState) implements OperatorContext {
        @Override
        public KeyedStateStore keyedState() {
            return null;
        }

        @Override
        public OptionalLong checkpointIntervalMs() {
            return OptionalLong.of(100);
        }
    }

    private static Row row(long id, String origin) {
        return new Row(SCHEMA, id, origin);
    }

    private static long count(String table) throws SQLException {
        return db.queryLong("SELECT count(*) FROM " + table);
    }

    private static List<Long> ids() throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (var c = db.connect(); var s = c.createStatement(); var rs = s.executeQuery("SELECT id FROM out ORDER BY id")) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }
}
