package io.weir.plugin.kafkasink;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.SuppressRestartsException;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.testing.InMemoryOperatorContext;
import io.weir.kafka.testkit.KafkaTestBroker;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.internals.AppInfoParser;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code kafka-2pc} sink against a real broker (one per class), driven the way
 * {@code TwoPhaseCommitSinkOperator} drives it; a {@code read_committed} consumer checks what is visible.
 * The last tests guard the reflection in {@link KafkaInternals} against the broker: if a kafka-clients
 * upgrade changes the internals, they fail the build (they share this class's broker to keep the suite fast).
 */
class KafkaSinkTest {
    private static final Schema SCHEMA = Schema.builder().field("k", FieldType.STRING).field("v", FieldType.LONG).build();

    @TempDir
    static Path dir;
    static KafkaTestBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        // timed-out transactions are aborted every 200 ms (default 10 s), and at most after 20 s (the FLINK-7784 tests)
        broker = KafkaTestBroker.start(dir, Map.of("transaction.abort.timed.out.transaction.cleanup.interval.ms", "200",
                "transaction.max.timeout.ms", "900000"));
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void recordsBecomeVisibleOnlyAtCommit() throws Exception {
        broker.createTopics(2, "clean");
        KafkaSink sink = sink("clean", Map.of());
        sink.open(Checkpointing.every100ms(InMemoryOperatorContext.fresh(0, 1)));
        sink.abortLeftovers(List.of());
        KafkaTransaction t = sink.beginTransaction();
        for (int i = 0; i < 3; i++) {
            sink.write(t, new Row(SCHEMA, "a" + i, (long) i));
        }
        KafkaTransaction recorded = sink.preCommit(t);
        assertThat(recorded.records()).isEqualTo(3);
        assertThat(recorded.producerId()).isNotNegative();
        assertThat(broker.readAll("clean", false)).hasSize(3);
        assertThat(broker.readAll("clean", true)).isEmpty();
        sink.commit(recorded);
        assertThat(broker.readAll("clean", true)).containsExactlyInAnyOrder(
                "{\"k\":\"a0\",\"v\":0}", "{\"k\":\"a1\",\"v\":1}", "{\"k\":\"a2\",\"v\":2}");
        sink.close();
    }

    @Test
    void restoredSinkCommitsTheRecordedTransactionOnceAndUsesNewIds() throws Exception {
        broker.createTopics(1, "restore");
        InMemoryOperatorContext ctx = InMemoryOperatorContext.fresh(0, 1);
        KafkaSink crashed = sink("restore", Map.of());
        crashed.open(Checkpointing.every100ms(ctx));
        crashed.abortLeftovers(List.of());
        KafkaTransaction t = crashed.beginTransaction();
        crashed.write(t, new Row(SCHEMA, "x", 1L));
        KafkaTransaction recorded = crashed.preCommit(t);
        KafkaTransaction next = crashed.beginTransaction(); // open when the process dies
        crashed.write(next, new Row(SCHEMA, "after-checkpoint", 2L));
        crashed.preCommit(next);
        Map<String, byte[]> snapshot = ctx.snapshotOperatorState();
        crashed.close(); // as after a crash: nothing committed or aborted

        KafkaSink restored = sink("restore", Map.of());
        restored.open(Checkpointing.every100ms(InMemoryOperatorContext.restored(0, 1, snapshot)));
        restored.commit(recorded);
        restored.commit(recorded); // a duplicate (e.g. a second restore) is a no-op
        KafkaTransaction fresh = restored.beginTransaction();
        assertThat(fresh.transactionalId()).isNotIn(recorded.transactionalId(), next.transactionalId());
        restored.write(fresh, new Row(SCHEMA, "y", 3L));
        KafkaTransaction freshRecorded = restored.preCommit(fresh);
        restored.abortLeftovers(List.of(freshRecorded)); // aborts `next`, which the restored checkpoint does not know
        restored.commit(freshRecorded);
        assertThat(broker.readAll("restore", true)).containsExactly("{\"k\":\"x\",\"v\":1}", "{\"k\":\"y\",\"v\":3}");
        restored.close();
    }

    @Test
    void notificationsOutOfOrderCommitEachTransactionOnce() throws Exception {
        broker.createTopics(1, "order");
        KafkaSink sink = sink("order", Map.of());
        sink.open(Checkpointing.every100ms(InMemoryOperatorContext.fresh(0, 1)));
        sink.abortLeftovers(List.of());
        KafkaTransaction t1 = sink.beginTransaction();
        sink.write(t1, new Row(SCHEMA, "c1", 1L));
        KafkaTransaction r1 = sink.preCommit(t1);
        KafkaTransaction t2 = sink.beginTransaction();
        sink.write(t2, new Row(SCHEMA, "c2", 2L));
        KafkaTransaction r2 = sink.preCommit(t2);
        sink.commit(r2);
        assertThat(broker.readAll("order", true)).isEmpty(); // r1 is open before r2 in the log: the LSO holds
        sink.commit(r1);
        sink.commit(r2); // a late duplicate
        assertThat(broker.readAll("order", true)).containsExactly("{\"k\":\"c1\",\"v\":1}", "{\"k\":\"c2\",\"v\":2}");
        sink.close();
    }

    @Test
    void committedProducersCarryTheNextTransactionsUnderTheirId() throws Exception {
        broker.createTopics(1, "pooled");
        KafkaSink sink = sink("pooled", Map.of());
        sink.open(Checkpointing.every100ms(InMemoryOperatorContext.fresh(0, 1)));
        sink.abortLeftovers(List.of());
        List<String> ids = new ArrayList<>();
        for (long i = 0; i < 5; i++) {
            KafkaTransaction t = sink.beginTransaction();
            ids.add(t.transactionalId());
            sink.write(t, new Row(SCHEMA, "p", i));
            sink.commit(sink.preCommit(t));
        }
        assertThat(sink.producersCreated()).as("one producer, initialized once, for 5 checkpoints").isEqualTo(1);
        assertThat(ids).containsOnly("test-pooled-0-0");
        awaitCommitted("pooled", "{\"k\":\"p\",\"v\":0}", "{\"k\":\"p\",\"v\":1}", "{\"k\":\"p\",\"v\":2}",
                "{\"k\":\"p\",\"v\":3}", "{\"k\":\"p\",\"v\":4}");
        sink.close();
    }

    @Test
    void restoredSinkTellsARecordedTransactionOfAPooledIdFromTheIdsLaterOnes() throws Exception {
        broker.createTopics(1, "pooled-restore");
        InMemoryOperatorContext ctx = InMemoryOperatorContext.fresh(0, 1);
        KafkaSink crashed = sink("pooled-restore", Map.of());
        crashed.open(Checkpointing.every100ms(ctx));
        crashed.abortLeftovers(List.of());
        KafkaTransaction t1 = crashed.beginTransaction();
        crashed.write(t1, new Row(SCHEMA, "a", 1L));
        KafkaTransaction r1 = crashed.preCommit(t1);
        crashed.commit(r1);
        KafkaTransaction t2 = crashed.beginTransaction(); // the pooled producer: same id, next epoch
        assertThat(t2.transactionalId()).isEqualTo(t1.transactionalId());
        crashed.write(t2, new Row(SCHEMA, "b", 2L));
        KafkaTransaction r2 = crashed.preCommit(t2);
        assertThat(r2.epoch()).isGreaterThan(r1.epoch());
        Map<String, byte[]> snapshot = ctx.snapshotOperatorState(); // the checkpoint records r2
        crashed.commit(r2); // ... its notification arrives ...
        KafkaTransaction t3 = crashed.beginTransaction(); // ... and the id goes on to a transaction after it
        crashed.write(t3, new Row(SCHEMA, "after-checkpoint", 3L));
        crashed.preCommit(t3);
        crashed.close(); // crash: t3 stays open at the broker

        KafkaSink restored = sink("pooled-restore", Map.of());
        restored.open(Checkpointing.every100ms(InMemoryOperatorContext.restored(0, 1, snapshot)));
        restored.commit(r2); // the id's ongoing transaction is t3 (a later epoch): r2 was committed, no-op
        restored.commit(r1); // a recorded handle two transactions back: no-op
        restored.abortLeftovers(List.of()); // aborts t3
        awaitCommitted("pooled-restore", "{\"k\":\"a\",\"v\":1}", "{\"k\":\"b\",\"v\":2}");
        restored.close();

        // the same id's recorded transaction still open when the job died is resumed and committed
        InMemoryOperatorContext ctx2 = InMemoryOperatorContext.fresh(0, 1);
        KafkaSink crashed2 = sink("pooled-restore", Map.of("transactional-id-prefix", "test-pooled-resume"));
        crashed2.open(Checkpointing.every100ms(ctx2));
        crashed2.abortLeftovers(List.of());
        KafkaTransaction u1 = crashed2.beginTransaction();
        crashed2.write(u1, new Row(SCHEMA, "c", 4L));
        crashed2.commit(crashed2.preCommit(u1));
        KafkaTransaction u2 = crashed2.beginTransaction();
        crashed2.write(u2, new Row(SCHEMA, "d", 5L));
        KafkaTransaction recorded = crashed2.preCommit(u2);
        Map<String, byte[]> snapshot2 = ctx2.snapshotOperatorState();
        crashed2.close();
        KafkaSink restored2 = sink("pooled-restore", Map.of("transactional-id-prefix", "test-pooled-resume"));
        restored2.open(Checkpointing.every100ms(InMemoryOperatorContext.restored(0, 1, snapshot2)));
        restored2.commit(recorded);
        restored2.commit(recorded);
        restored2.abortLeftovers(List.of());
        awaitCommitted("pooled-restore", "{\"k\":\"a\",\"v\":1}", "{\"k\":\"b\",\"v\":2}",
                "{\"k\":\"c\",\"v\":4}", "{\"k\":\"d\",\"v\":5}");
        restored2.close();
    }

    @Test
    void recordedTransactionCommittedByTheCrashedRunsProducerWhileBeingResumedIsNotLost() throws Exception {
        // the crashed run's commit was still in flight (its task interrupted while awaiting EndTxn) and lands
        // between the restored run's describe (ongoing) and its resumed commit
        broker.createTopics(1, "late-commit");
        InMemoryOperatorContext ctx = InMemoryOperatorContext.fresh(0, 1);
        KafkaSink crashed = sink("late-commit", Map.of());
        crashed.open(Checkpointing.every100ms(ctx));
        crashed.abortLeftovers(List.of());
        KafkaTransaction t = crashed.beginTransaction();
        crashed.write(t, new Row(SCHEMA, "late", 1L));
        KafkaTransaction recorded = crashed.preCommit(t);
        Map<String, byte[]> snapshot = ctx.snapshotOperatorState();

        KafkaSink restored = sink("late-commit", Map.of());
        restored.open(Checkpointing.every100ms(InMemoryOperatorContext.restored(0, 1, snapshot)));
        restored.beforeResumedCommit(() -> crashed.commit(recorded));
        restored.commit(recorded); // must not report the transaction as lost (nor fail the job)
        awaitCommitted("late-commit", "{\"k\":\"late\",\"v\":1}");
        restored.close();
        crashed.close();
    }

    /**
     * delivery-guarantee at-least-once: records are flushed at the barrier and visible at once (no commit); a failure
     * after a barrier whose checkpoint did not complete replays the records since the restored checkpoint, which are
     * then in the topic twice: duplicates, never a loss.
     */
    @Test
    void atLeastOnceRecordsAreVisibleAtTheBarrierAndAReplayDuplicatesButNeverLosesThem() throws Exception {
        broker.createTopics(1, "alo");
        Map<String, Object> values = new HashMap<>(Map.of("bootstrap-servers", broker.bootstrapServers(), "topic", "alo",
                "delivery-guarantee", "at-least-once"));
        io.weir.api.sink.TwoPhaseCommittingSink<KafkaTransaction> first = new KafkaSinkFactory().create(config(values), SCHEMA);
        assertThat(first).isInstanceOf(AtLeastOnceKafkaSink.class);
        first.open(Checkpointing.every100ms(InMemoryOperatorContext.fresh(0, 1)));
        first.abortLeftovers(List.of());
        KafkaTransaction t1 = first.beginTransaction();
        first.write(t1, new Row(SCHEMA, "a", 1L));
        first.write(t1, new Row(SCHEMA, "b", 2L));
        KafkaTransaction checkpoint1 = first.preCommit(t1);
        assertThat(broker.readAll("alo", true)).as("visible at the barrier, before any commit")
                .containsExactly("{\"k\":\"a\",\"v\":1}", "{\"k\":\"b\",\"v\":2}");
        first.commit(checkpoint1);
        KafkaTransaction t2 = first.beginTransaction();
        first.write(t2, new Row(SCHEMA, "c", 3L));
        first.preCommit(t2); // checkpoint 2's barrier; the task fails before checkpoint 2 completes
        first.close();

        io.weir.api.sink.TwoPhaseCommittingSink<KafkaTransaction> replay = new KafkaSinkFactory().create(config(values), SCHEMA);
        replay.open(Checkpointing.every100ms(InMemoryOperatorContext.fresh(0, 1)));
        replay.commit(checkpoint1); // a no-op
        KafkaTransaction r = replay.beginTransaction();
        replay.write(r, new Row(SCHEMA, "c", 3L)); // replayed from checkpoint 1
        replay.write(r, new Row(SCHEMA, "d", 4L));
        replay.commit(replay.preCommit(r));
        replay.close();
        assertThat(broker.readAll("alo", true)).containsExactly("{\"k\":\"a\",\"v\":1}", "{\"k\":\"b\",\"v\":2}",
                "{\"k\":\"c\",\"v\":3}", "{\"k\":\"c\",\"v\":3}", "{\"k\":\"d\",\"v\":4}");
    }

    @Test
    void rescaledDownSinkAbortsTheTransactionsOfSubtasksThatNoLongerExist() throws Exception {
        broker.createTopics(1, "rescale");
        KafkaSink gone = sink("rescale", Map.of());
        gone.open(Checkpointing.every100ms(InMemoryOperatorContext.fresh(1, 2)));
        KafkaTransaction t = gone.beginTransaction();
        gone.write(t, new Row(SCHEMA, "lingering", 9L));
        gone.preCommit(t);
        gone.close();

        KafkaSink survivor = sink("rescale", Map.of());
        survivor.open(Checkpointing.every100ms(InMemoryOperatorContext.fresh(0, 1)));
        survivor.abortLeftovers(List.of());
        KafkaTransaction s = survivor.beginTransaction();
        survivor.write(s, new Row(SCHEMA, "kept", 1L));
        survivor.commit(survivor.preCommit(s));
        // without the abort, read_committed would stop at the lingering transaction for 15 minutes
        assertThat(broker.readAll("rescale", true)).containsExactly("{\"k\":\"kept\",\"v\":1}");
        survivor.close();
    }

    /**
     * Pins the ordering {@link KafkaSink}'s class Javadoc relies on ("No id is initialized before its recorded
     * transaction commits"): old subtask 0 of 2 recorded two transactions (two concurrent checkpoints) and crashed;
     * restored with parallelism 2, the pending list is dealt round-robin, so its second transaction goes to new
     * subtask 1 while new subtask 0, which owns the ids {@code -0-*}, aborts leftovers. Subtask 1 commits it at restore
     * and subtask 0 aborts leftovers only at the first checkpoint completed after the restore (which subtask 1 can
     * acknowledge only after its restore commits), so the fence finds nothing ongoing, and fresh ids of both new
     * subtasks are above every recorded one (union state).
     */
    @Test
    void recordedTransactionDealtToAnotherSubtaskIsCommittedBeforeItsIdsOwnerAbortsLeftovers() throws Exception {
        broker.createTopics(1, "dealt");
        InMemoryOperatorContext old0 = InMemoryOperatorContext.fresh(0, 2);
        KafkaSink crashed = sink("dealt", Map.of());
        crashed.open(Checkpointing.every100ms(old0));
        crashed.abortLeftovers(List.of());
        KafkaTransaction a = crashed.beginTransaction();
        crashed.write(a, new Row(SCHEMA, "a", 1L));
        KafkaTransaction recordedA = crashed.preCommit(a);
        KafkaTransaction b = crashed.beginTransaction();
        crashed.write(b, new Row(SCHEMA, "b", 2L));
        KafkaTransaction recordedB = crashed.preCommit(b);
        crashed.beginTransaction(); // open when the process dies, empty
        Map<String, byte[]> snapshot = old0.snapshotOperatorState();
        crashed.close();

        KafkaSink new0 = sink("dealt", Map.of());
        new0.open(Checkpointing.every100ms(InMemoryOperatorContext.restored(0, 2, snapshot)));
        KafkaSink new1 = sink("dealt", Map.of());
        new1.open(Checkpointing.every100ms(InMemoryOperatorContext.restored(1, 2, snapshot)));
        new0.commit(recordedA); // restore: each new subtask commits what it was dealt
        new1.commit(recordedB);
        KafkaTransaction fresh0 = new0.beginTransaction();
        KafkaTransaction fresh1 = new1.beginTransaction();
        long recordedMax = Math.max(n(recordedA), n(recordedB));
        assertThat(n(fresh0)).isGreaterThan(recordedMax);
        assertThat(n(fresh1)).isGreaterThan(recordedMax);
        // the first checkpoint after the restore completed: now the owner of -0-* aborts leftovers
        new0.write(fresh0, new Row(SCHEMA, "c", 3L));
        KafkaTransaction recordedC = new0.preCommit(fresh0);
        new0.commit(recordedC);
        new0.abortLeftovers(List.of());
        new1.abortLeftovers(List.of());
        new1.commit(recordedB); // a late duplicate notification stays a no-op
        awaitCommitted("dealt", "{\"k\":\"a\",\"v\":1}", "{\"k\":\"b\",\"v\":2}", "{\"k\":\"c\",\"v\":3}");
        new0.close();
        new1.close();
    }

    /** @return the {@code n} of a transactional id {@code <prefix>-<subtask>-<n>} */
    private static long n(KafkaTransaction t) {
        String id = t.transactionalId();
        return Long.parseLong(id.substring(id.lastIndexOf('-') + 1));
    }

    @Test
    void pendingTransactionSurvivesABrokerRestart() throws Exception {
        broker.createTopics(1, "restart");
        KafkaSink sink = sink("restart", Map.of());
        sink.open(Checkpointing.every100ms(InMemoryOperatorContext.fresh(0, 1)));
        KafkaTransaction t = sink.beginTransaction();
        sink.write(t, new Row(SCHEMA, "r", 1L));
        KafkaTransaction r = sink.preCommit(t);
        broker.restart();
        sink.commit(r);
        awaitCommitted("restart", "{\"k\":\"r\",\"v\":1}");
        sink.close();
    }

    @Test
    void transactionAbortedByTheBrokerWhileTheJobWasDownFailsRecoveryWithoutRestarts() throws Exception {
        broker.createTopics(1, "lost");
        KafkaTransaction recorded = abandonUntilTimedOut("lost");
        KafkaSink restored = sink("lost", Map.of("transaction-timeout-ms", 1000));
        restored.open(Checkpointing.every100ms(InMemoryOperatorContext.fresh(0, 1)));
        assertThatThrownBy(() -> restored.commit(recorded))
                .isInstanceOf(SuppressRestartsException.class)
                .hasMessageContaining(recorded.transactionalId())
                .hasMessageContaining("state CompleteAbort")
                .hasMessageContaining("longer than transaction-timeout-ms (1000 ms): the broker aborted it when the timeout passed")
                .hasMessageContaining("ignore-lost-transactions=true");
        restored.close();
    }

    @Test
    void lostTransactionYoungerThanTheTimeoutIsNotBlamedOnTheTimeout() throws Exception {
        broker.createTopics(1, "lost-young");
        KafkaTransaction recorded = abandonUntilTimedOut("lost-young");
        // this run's clock says the transaction is 400 ms old: the broker's 1 s timeout cannot be what aborted it
        Map<String, Object> values = new HashMap<>(Map.of("bootstrap-servers", broker.bootstrapServers(), "topic", "lost-young",
                "transaction-timeout-ms", 1000, "transactional-id-prefix", "test-lost-young"));
        KafkaSink restored = new KafkaSink(KafkaSinkSettings.from(config(values), SCHEMA), SCHEMA, () -> recorded.startedAtMs() + 400);
        restored.open(Checkpointing.every100ms(InMemoryOperatorContext.fresh(0, 1)));
        assertThatThrownBy(() -> restored.commit(recorded))
                .isInstanceOf(SuppressRestartsException.class)
                .hasMessageContaining("the broker reports state CompleteAbort")
                .hasMessageContaining("opened 0 s ago (400 ms by this machine's clock), less than transaction-timeout-ms (1000 ms)")
                .hasMessageContaining("another producer of the same transactional id")
                .hasMessageNotContaining("most likely");
        restored.close();
    }

    @Test
    void transactionAbortedByTheBrokerIsSkippedWhenTheUserOptedIn() throws Exception {
        broker.createTopics(1, "lost-ok");
        KafkaTransaction recorded = abandonUntilTimedOut("lost-ok");
        KafkaSink restored = sink("lost-ok", Map.of("transaction-timeout-ms", 1000, "ignore-lost-transactions", true));
        restored.open(Checkpointing.every100ms(InMemoryOperatorContext.fresh(0, 1)));
        restored.commit(recorded);
        assertThat(broker.readAll("lost-ok", true)).isEmpty();
        restored.close();
    }

    @Test
    void pendingTransactionNearingTheTimeoutIsReportedOnce() throws Exception {
        broker.createTopics(1, "aging");
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(1_000_000);
        Map<String, Object> values = new HashMap<>(Map.of("bootstrap-servers", broker.bootstrapServers(), "topic", "aging",
                "transaction-timeout-ms", 100_000, "transactional-id-prefix", "test-aging"));
        KafkaSink sink = new KafkaSink(KafkaSinkSettings.from(config(values), SCHEMA), SCHEMA, now::get);
        sink.open(Checkpointing.every100ms(InMemoryOperatorContext.fresh(0, 1)));
        KafkaTransaction t = sink.beginTransaction();
        sink.write(t, new Row(SCHEMA, "a", 1L));
        KafkaTransaction pending = sink.preCommit(t);
        now.addAndGet(79_000); // 79 % of the timeout: quiet
        KafkaTransaction next = sink.beginTransaction();
        assertThat(sink.ageWarnings()).isZero();
        now.addAndGet(2_000); // 81 %
        for (int i = 0; i < 2 * KafkaSink.AGE_CHECK_WRITES; i++) { // checked while writing too, reported once
            sink.write(next, new Row(SCHEMA, "b", (long) i));
        }
        assertThat(sink.ageWarnings()).isEqualTo(1);
        sink.commit(pending);
        sink.commit(sink.preCommit(next));
        sink.close();
    }

    @Test
    void withoutCheckpointingTheSinkRefusesToStartUnlessAllowed() throws Exception {
        KafkaSink refused = sink("unused", Map.of());
        assertThatThrownBy(() -> refused.open(InMemoryOperatorContext.fresh(0, 1))) // checkpointIntervalMs() empty
                .isInstanceOf(SuppressRestartsException.class)
                .hasMessageContaining("execution.checkpointing.interval is not set")
                .hasMessageContaining("allow-without-checkpointing")
                .hasMessageContaining("subtask 0 of job test-job");
        refused.close();
        KafkaSink allowed = sink("unused", Map.of("allow-without-checkpointing", true));
        allowed.open(InMemoryOperatorContext.fresh(0, 1));
        allowed.close();
    }

    @Test
    void validationNamesAnUnreachableBrokerWithinBoundedTime() throws Exception {
        int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        PluginConfig c = config(Map.of("bootstrap-servers", "127.0.0.1:" + closedPort, "topic", "t"));
        long start = System.nanoTime();
        assertThatThrownBy(() -> new KafkaSinkFactory().validate(c, SCHEMA))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sinks[0].config.bootstrap-servers")
                .hasMessageContaining("127.0.0.1:" + closedPort);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
    }

    @Test
    void validationNamesAMissingTopicAndATooLongTimeout() {
        broker.createTopics(1, "exists");
        assertThatThrownBy(() -> new KafkaSinkFactory().validate(config(Map.of("bootstrap-servers", broker.bootstrapServers(),
                "topic", "no-such-topic")), SCHEMA))
                .hasMessageContaining("sinks[0].config.topic").hasMessageContaining("'no-such-topic' does not exist");
        assertThatThrownBy(() -> new KafkaSinkFactory().validate(config(Map.of("bootstrap-servers", broker.bootstrapServers(),
                "topic", "exists", "transaction-timeout-ms", 900_001)), SCHEMA))
                .hasMessageContaining("transaction-timeout-ms").hasMessageContaining("transaction.max.timeout.ms (900000 ms)");
        new KafkaSinkFactory().validate(config(Map.of("bootstrap-servers", broker.bootstrapServers(), "topic", "exists")), SCHEMA);
    }

    @Test
    void kafkaClientsIsThePinnedVersion() {
        assertThat(AppInfoParser.getVersion()).isEqualTo(KafkaInternals.PINNED_VERSION);
    }

    @Test
    void internalsResumeTheTransactionOfAnAbandonedProducerAndCommitItAsItsOwnProducerWould() throws Exception {
        broker.createTopics(1, "resume");
        // control: what a live producer's commit leaves at the broker (TV2, Kafka 4's default: the epoch goes up by one)
        KafkaProducer<byte[], byte[]> live = rawProducer("tx-live", 60_000);
        live.initTransactions();
        live.beginTransaction();
        live.send(new ProducerRecord<>("resume", "l".getBytes(StandardCharsets.UTF_8)));
        short liveEpoch = KafkaInternals.producerIdAndEpoch(live).epoch();
        live.commitTransaction();
        live.close();

        KafkaProducer<byte[], byte[]> writer = rawProducer("tx-resume", 60_000);
        writer.initTransactions();
        writer.beginTransaction();
        for (int i = 0; i < 5; i++) {
            writer.send(new ProducerRecord<>("resume", ("r" + i).getBytes(StandardCharsets.UTF_8)));
        }
        writer.flush();
        KafkaInternals.ProducerIdAndEpoch id = KafkaInternals.producerIdAndEpoch(writer);
        assertThat(id.producerId()).isGreaterThanOrEqualTo(0);
        // the writer is abandoned without commit or abort, as by a crash (its network thread stays silent)
        assertThat(broker.readAll("resume", true)).containsExactly("l");

        try (KafkaProducer<byte[], byte[]> resumer = rawProducer("tx-resume", 60_000)) {
            KafkaInternals.resumeTransaction(resumer, id, "resume");
            resumer.commitTransaction();
        }
        awaitCommitted("resume", "l", "r0", "r1", "r2", "r3", "r4");
        try (Admin admin = broker.admin()) {
            var liveState = admin.describeTransactions(List.of("tx-live")).all().get().get("tx-live");
            var resumedState = admin.describeTransactions(List.of("tx-resume")).all().get().get("tx-resume");
            assertThat(liveState.state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
            // a resumed commit must not leave the id Empty (committed, then re-initialized by the client) nor in another
            // protocol's state than a live commit: the duplicate-commit check reads this state
            assertThat(resumedState.state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
            assertThat(resumedState.producerEpoch() - id.epoch()).isEqualTo(liveState.producerEpoch() - liveEpoch);
        }
        writer.close(Duration.ZERO);
    }

    @Test
    void internalsResumingATransactionTheBrokerAbortedOnTimeoutFails() throws Exception {
        broker.createTopics(1, "lost-raw");
        KafkaProducer<byte[], byte[]> writer = rawProducer("tx-lost", 1_000);
        writer.initTransactions();
        writer.beginTransaction();
        writer.send(new ProducerRecord<>("lost-raw", "x".getBytes(StandardCharsets.UTF_8)));
        writer.flush();
        KafkaInternals.ProducerIdAndEpoch id = KafkaInternals.producerIdAndEpoch(writer);
        writer.close(Duration.ZERO);
        try (Admin admin = broker.admin()) {
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> admin.describeTransactions(List.of("tx-lost"))
                    .all().get().get("tx-lost").state() == TransactionState.COMPLETE_ABORT);
        }
        try (KafkaProducer<byte[], byte[]> resumer = rawProducer("tx-lost", 1_000)) {
            KafkaInternals.resumeTransaction(resumer, id, "lost-raw");
            assertThatThrownBy(resumer::commitTransaction).isInstanceOf(org.apache.kafka.common.KafkaException.class);
        }
        assertThat(broker.readAll("lost-raw", true)).isEmpty();
    }

    private static KafkaProducer<byte[], byte[]> rawProducer(String txId, int timeoutMs) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txId);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, timeoutMs);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Pre-commits a transaction with a 1 s timeout, abandons it, and waits until the broker has aborted it. */
    private static KafkaTransaction abandonUntilTimedOut(String topic) throws Exception {
        KafkaSink crashed = sink(topic, Map.of("transaction-timeout-ms", 1000));
        crashed.open(Checkpointing.every100ms(InMemoryOperatorContext.fresh(0, 1)));
        KafkaTransaction t = crashed.beginTransaction();
        crashed.write(t, new Row(SCHEMA, "doomed", 1L));
        KafkaTransaction recorded = crashed.preCommit(t);
        crashed.close();
        try (Admin admin = broker.admin()) {
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> admin.describeTransactions(List.of(recorded.transactionalId()))
                    .all().get().get(recorded.transactionalId()).state() == TransactionState.COMPLETE_ABORT);
        }
        return recorded;
    }

    /**
     * Waits (up to 30 s) until a read_committed reader sees exactly {@code expected}: commit markers are written
     * after {@code commitTransaction()} returns, so the last stable offset may lag it briefly.
     */
    private static void awaitCommitted(String topic, String... expected) {
        Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(
                () -> assertThat(broker.readAll(topic, true)).containsExactly(expected));
    }

    private static KafkaSink sink(String topic, Map<String, Object> extra) {
        Map<String, Object> values = new HashMap<>(extra);
        values.put("bootstrap-servers", broker.bootstrapServers());
        values.put("topic", topic);
        values.putIfAbsent("transactional-id-prefix", "test-" + topic);
        return new KafkaSink(KafkaSinkSettings.from(config(values), SCHEMA), SCHEMA);
    }

    private static PluginConfig config(Map<String, Object> values) {
        return new PluginConfig("sinks[0].config", new HashMap<>(values), Path.of("."));
    }
}
