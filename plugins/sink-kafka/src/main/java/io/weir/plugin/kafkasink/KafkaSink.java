package io.weir.plugin.kafkasink;

import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.SuppressRestartsException;
import io.weir.api.operator.OperatorContext;
import io.weir.api.serialization.Serializers;
import io.weir.api.serialization.TypeSerializer;
import io.weir.api.sink.TwoPhaseCommittingSink;
import io.weir.api.state.ListState;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Exactly-once into a Kafka topic (PROTOCOL.md §8, shared RECIPES.md §3): one Kafka transaction per
 * subtask per checkpoint. Each producer has a transactional id of its own, {@code <prefix>-<subtask>-<n>}
 * ({@code n} counts up per subtask and never goes back, also across restores: the next {@code n} of every
 * subtask is kept in union operator state, and a restored subtask starts above all of them, so a restored
 * run never initializes, and so never fences, the id of a transaction it recorded before committing it).
 * A producer whose transaction committed goes back to a small pool ({@value #POOL_SIZE} per subtask) and
 * carries the next transaction under the same id, without a new producer or {@code initTransactions()}
 * round trip; that is done only when the broker bumped the producer epoch at the commit (transaction
 * protocol version 2, Kafka 4's default), so that each transaction of an id has an epoch of its own and
 * a recorded handle names exactly one transaction.
 * <ul>
 * <li>{@link #beginTransaction}: a pooled producer, or a producer for a new id and {@code initTransactions()}
 *     (which also fences and aborts whatever an earlier producer of that id left open); then
 *     {@code beginTransaction()};</li>
 * <li>{@link #preCommit} (at the barrier): {@code flush()}, then the producer id and epoch
 *     ({@link KafkaInternals}) go into the handle recorded in the checkpoint;</li>
 * <li>{@link #commit}: {@code commitTransaction()} on the live producer; for a handle restored from a
 *     checkpoint (no live producer), a new producer of that id resumes the transaction and commits it.
 *     The broker's state of the id decides first ({@code describeTransactions}): committed → no-op (a
 *     duplicate or late commit), ongoing → resume and commit, aborted or unknown → the transaction is lost
 *     (the broker's timeout passed while the job was down, FLINK-7784): a {@link SuppressRestartsException},
 *     or, when {@code ignore-lost-transactions} is set, an ERROR log and the transaction is skipped;</li>
 * <li>{@link #abortLeftovers}: lists the broker's ongoing transactions and fences (by
 *     {@code initTransactions()}) those of this subtask, and of subtasks {@code j >= parallelism} with
 *     {@code j % parallelism == subtaskIndex} (an earlier run with more subtasks), that are neither
 *     kept nor live.</li>
 * </ul>
 * A pre-committed transaction older than {@value #AGE_WARNING_PERCENT}% of the transaction timeout is
 * reported once with a WARN: the broker aborts it when the timeout passes, and its data is lost.
 *
 * <p><b>No id is initialized before its recorded transaction commits</b> (which {@link #laterTransactionOfTheId}
 * relies on: an initialization also bumps the epoch, and aborts the transaction). Only three calls initialize an id,
 * and none can reach the id of a transaction recorded in the checkpoint a run restores, {@code c}, before it commits:
 * <ol>
 * <li>{@link #beginTransaction} initializes only ids {@code n >= nextId}, and a restored {@code nextId} is the maximum
 *     over every old subtask (union state) as of {@code c}, above every id recorded in {@code c} (an id is counted
 *     before its transaction can be pre-committed). A pooled producer goes on under its id without initializing it,
 *     and is pooled only after its commit returned.</li>
 * <li>{@link #abortLeftovers} fences only ongoing ids not kept or live here, and the runtime calls it after a restore
 *     only at the first checkpoint completed after it ({@code TwoPhaseCommitSinkOperator}): every subtask has then
 *     acknowledged that checkpoint, which it does only after committing, in {@code initializeState}, every recorded
 *     transaction it was dealt — also those of another subtask's ids after a rescale
 *     ({@code recordedTransactionDealtToAnotherSubtaskIsCommittedBeforeItsIdsOwnerAbortsLeftovers} pins it). A restore
 *     that fails before then runs no fence, and the next one commits the same transactions again.</li>
 * <li>{@link #abort} of a handle with no live producer fences; the runtime aborts only its own live transactions.</li>
 * </ol>
 * Outside this argument, and so outside the guarantee: a process of an earlier run that still runs (a zombie) and
 * counts ids on from its own {@code nextId}, another job with the same transactional-id prefix, and restoring an
 * older checkpoint after a newer one completed without its commits and later restoring that newer one. Each can
 * initialize a recorded id first; its transaction is then aborted (its records lost whatever this sink does) and may
 * be taken for committed here instead of reported lost. Flink's connector shares the first two hazards.
 *
 * <p>All methods run on the sink task's thread; the mutable fields are confined to it.
 */
public final class KafkaSink implements TwoPhaseCommittingSink<KafkaTransaction> {
    /** What {@link #lost} reports when the broker does not know the transactional id. */
    private static final String NO_SUCH_ID = "no such transactional id";
    private static final Logger LOG = LoggerFactory.getLogger(KafkaSink.class);
    /** Union operator state: per subtask, the {@code n} of its next transactional id. */
    static final String NEXT_ID_STATE = "kafka-2pc-next-transactional-id";
    static final int AGE_WARNING_PERCENT = 80;
    /** Committed producers kept for the next transactions, per subtask. */
    static final int POOL_SIZE = 3;

    private final KafkaSinkSettings settings;
    private final RecordEncoder encoder;
    private final LongSupplier clock;

    // Task thread only.
    private OperatorContext context;
    private String prefix;
    private ListState<Long> nextIdState;
    /** Created on the first restored commit; closed in {@link #close}. */
    private Admin admin;
    private long nextId;
    /** Transactions of this instance, by transactional id, not committed or aborted yet. */
    private final Map<String, Live> live = new HashMap<>();
    /** Producers whose transaction committed, ready to begin the next one under their id; at most {@link #POOL_SIZE}. */
    private final java.util.ArrayDeque<Pooled> idle = new java.util.ArrayDeque<>();
    /** Producers created (each with an {@code initTransactions()}), for tests. */
    private int producersCreated;
    /** Writes since the last age check; ages are also checked every {@value #AGE_CHECK_WRITES} writes. */
    private int writesSinceAgeCheck;
    /** Whether the {@code debug.inject-delay.before-commit} hold happened (it happens once per instance). */
    private boolean heldBeforeCommit;
    /** Transactions reported as nearing the timeout, for tests. */
    private int ageWarnings;
    static final int AGE_CHECK_WRITES = 1024;
    /** Runs between resuming a recorded transaction and committing it; a test injects a concurrent commit there. */
    private Runnable beforeResumedCommit = () -> { };

    /**
     * @param settings the validated config
     * @param schema the schema of the rows written
     */
    public KafkaSink(KafkaSinkSettings settings, Schema schema) {
        this(settings, schema, Clock.systemUTC()::millis);
    }

    /** @param clock wall-clock ms since the epoch, for transaction ages (tests move it) */
    KafkaSink(KafkaSinkSettings settings, Schema schema, LongSupplier clock) {
        this.settings = settings;
        this.encoder = new RecordEncoder(settings, schema);
        this.clock = clock;
    }

    /**
     * Checks that the job checkpoints, derives the transactional id prefix and restores the id counter:
     * above every subtask's of the restored checkpoint, or 0 on a fresh start.
     *
     * @throws SuppressRestartsException if {@code execution.checkpointing.interval} is unset and
     *         {@code allow-without-checkpointing} is not true (nothing would be committed before a bounded job
     *         ends, and an unbounded job would never commit)
     */
    @Override
    public void open(OperatorContext context) {
        this.context = context;
        if (context.checkpointIntervalMs().isEmpty()) {
            String message = describe() + ": execution.checkpointing.interval is not set, so this exactly-once sink would"
                    + " commit nothing until a bounded job ends (and an unbounded job never)";
            if (!settings.allowWithoutCheckpointing()) {
                throw new SuppressRestartsException(message + ". Set execution.checkpointing.interval (e.g. 1s), or set the"
                        + " sink's allow-without-checkpointing to true for a bounded job that may commit only at its end");
            }
            LOG.warn("{}; starting anyway (allow-without-checkpointing is true): every record stays in one open"
                    + " transaction, which read_committed consumers wait at, until the final checkpoint", message);
        }
        this.prefix = settings.transactionalIdPrefix() != null ? settings.transactionalIdPrefix()
                : sanitize(context.jobName()) + "-" + sanitize(context.operatorId());
        nextIdState = context.operatorState().getUnionListState(NEXT_ID_STATE, Serializers.LONG);
        nextId = 0;
        for (Long n : nextIdState.get()) {
            nextId = Math.max(nextId, n);
        }
        LOG.info("{} opens with transactional ids {}-{}-<n> from n={}", describe(), prefix, context.subtaskIndex(), nextId);
    }

    /**
     * Creates and initializes a producer for the next transactional id and begins its transaction.
     *
     * @throws org.apache.kafka.common.KafkaException if the broker cannot initialize the producer
     *         (e.g. unreachable within {@code max.block.ms}, 60 s)
     */
    @Override
    public KafkaTransaction beginTransaction() {
        warnAboutOldTransactions();
        Pooled pooled = idle.pollFirst();
        String id;
        KafkaProducer<byte[], byte[]> producer;
        if (pooled != null) {
            id = pooled.transactionalId();
            producer = pooled.producer();
        } else {
            id = prefix + "-" + context.subtaskIndex() + "-" + nextId;
            nextId++;
            nextIdState.update(List.of(nextId));
            producer = producer(id);
            producersCreated++;
        }
        try {
            if (pooled == null) {
                producer.initTransactions();
            }
            producer.beginTransaction();
        } catch (RuntimeException e) {
            closeQuietly(producer, Duration.ZERO);
            throw e;
        }
        KafkaTransaction txn = new KafkaTransaction(id, -1, (short) -1, 0, clock.getAsLong());
        live.put(id, new Live(producer));
        return txn;
    }

    /**
     * Sends the row (asynchronously; errors surface at the next write or at pre-commit).
     *
     * @throws IllegalStateException if the transaction is unknown or pre-committed
     * @throws org.apache.kafka.common.KafkaException if an earlier send of this transaction failed
     */
    @Override
    public void write(KafkaTransaction txn, Row row) {
        Live l = live(txn, "write to");
        if (l.preCommitted) {
            throw new IllegalStateException(describe() + " cannot write to pre-committed transaction " + txn.transactionalId());
        }
        l.throwSendError();
        if (++writesSinceAgeCheck >= AGE_CHECK_WRITES) {
            warnAboutOldTransactions();
        }
        l.producer.send(new ProducerRecord<>(settings.topic(), encoder.key(row), encoder.value(row)), l);
        l.records++;
    }

    /**
     * Phase 1: flushes every record of the transaction to the broker and records the producer's id and epoch.
     *
     * @throws org.apache.kafka.common.KafkaException if a send failed, naming the transaction
     */
    @Override
    public KafkaTransaction preCommit(KafkaTransaction txn) {
        Live l = live(txn, "pre-commit");
        l.producer.flush();
        l.throwSendError();
        l.preCommitted = true;
        KafkaTransaction recorded = txn.preCommitted(KafkaInternals.producerIdAndEpoch(l.producer), l.records);
        l.handle = recorded;
        LOG.debug("{} pre-committed {} ({} records)", describe(), txn.transactionalId(), l.records);
        return recorded;
    }

    /**
     * Phase 2: commits the transaction; a restored one (no live producer here) is resumed and committed.
     *
     * @throws SuppressRestartsException if a restored transaction was already aborted by the broker and
     *         {@code ignore-lost-transactions} is not set
     * @throws org.apache.kafka.common.KafkaException if the broker cannot be reached or refuses otherwise
     *         (the job restarts and commits again)
     */
    @Override
    public void commit(KafkaTransaction txn) {
        Live l = live.get(txn.transactionalId());
        if (l != null) {
            holdBeforeFirstCommit(txn);
            l.producer.commitTransaction();
            live.remove(txn.transactionalId());
            recycle(txn.transactionalId(), l.handle == null ? -1 : l.handle.epoch(), l.producer);
            LOG.debug("{} committed {} ({} records)", describe(), txn.transactionalId(), l.records);
            return;
        }
        if (txn.records() == 0 || txn.producerId() < 0) {
            return; // never started at the broker: nothing to commit
        }
        // Each transactional id carries exactly one transaction, so the id's state at the broker is the
        // transaction's. A committed one must not be resumed: TV2 bumped the epoch at its commit, and a
        // resumed commit with the recorded epoch is refused as fenced, like an aborted one.
        TransactionDescription state = describe(txn.transactionalId());
        if (state != null && laterTransactionOfTheId(txn, state)) {
            // a pooled producer went on to the next transaction of the id, which it does only after a commit
            LOG.debug("{} found recorded transaction {} (epoch {}) followed by epoch {} of the id: committed", describe(),
                    txn.transactionalId(), txn.epoch(), state.producerEpoch());
            return;
        }
        switch (state == null ? TransactionState.UNKNOWN : state.state()) {
            case COMPLETE_COMMIT, PREPARE_COMMIT -> LOG.debug("{} found recorded transaction {} committed", describe(), txn.transactionalId());
            case ONGOING -> resumeAndCommit(txn);
            default -> lost(txn, state == null ? NO_SUCH_ID : "state " + state.state(), null);
        }
    }

    /**
     * Commits a recorded transaction the broker reports ongoing through a new producer of its id. The producer is
     * closed without waiting when the commit fails: a waiting close of a producer whose resumed transaction did not
     * complete would abort that transaction ("Aborting incomplete transaction due to shutdown"), losing the records
     * the checkpoint promised to commit. A commit refused as fenced is checked against the broker again: another
     * producer of the id (the crashed run's, whose commit was still in flight) may have committed it meanwhile.
     */
    private void resumeAndCommit(KafkaTransaction txn) {
        KafkaProducer<byte[], byte[]> producer = producer(txn.transactionalId());
        boolean committed = false;
        try {
            KafkaInternals.resumeTransaction(producer, new KafkaInternals.ProducerIdAndEpoch(txn.producerId(), txn.epoch()),
                    settings.topic());
            beforeResumedCommit.run();
            producer.commitTransaction();
            committed = true;
            LOG.info("{} committed recorded transaction {} ({} records)", describe(), txn.transactionalId(), txn.records());
        } catch (ProducerFencedException | InvalidProducerEpochException | InvalidTxnStateException e) {
            TransactionDescription now = describe(txn.transactionalId());
            if (now != null && (now.state() == TransactionState.COMPLETE_COMMIT || now.state() == TransactionState.PREPARE_COMMIT
                    || laterTransactionOfTheId(txn, now))) {
                LOG.info("{} found recorded transaction {} committed by another producer of its id while resuming it ({})",
                        describe(), txn.transactionalId(), e.getClass().getSimpleName());
                return;
            }
            lost(txn, e.getClass().getSimpleName() + " (" + e.getMessage() + ")", e);
        } finally {
            closeQuietly(producer, committed ? Duration.ofSeconds(5) : Duration.ZERO);
        }
    }

    /**
     * Closes a producer, also when the task thread is interrupted (a cancelled task): {@code close} then throws
     * after starting the shutdown, which would otherwise skip the producers closed after it. The interrupt flag
     * stays set.
     */
    private void closeQuietly(KafkaProducer<byte[], byte[]> producer, Duration timeout) {
        try {
            producer.close(timeout);
        } catch (RuntimeException e) {
            LOG.debug("{}: closing a producer was cut short ({})", describe(), e.toString());
        }
    }

    /**
     * Whether the broker's state of the id is of a transaction after {@code txn}. The id's epoch goes up by
     * one when {@code txn} ends (committed, or aborted by the broker's timeout) and again only when a
     * pooled producer began and ended the next transaction, or another producer initialized the id.
     * A different producer id, an ongoing transaction with a higher epoch, or an epoch two or more above
     * the recorded one therefore mean that the pooled producer committed {@code txn} and went on — given that no
     * other producer initialized the id before {@code txn} committed, which the class Javadoc argues for every path
     * of Weir ("No id is initialized before its recorded transaction commits").
     */
    private static boolean laterTransactionOfTheId(KafkaTransaction txn, TransactionDescription state) {
        if (state.producerId() != txn.producerId()) {
            return state.producerId() >= 0;
        }
        int epochsAfter = state.producerEpoch() - txn.epoch();
        return state.state() == TransactionState.ONGOING ? epochsAfter > 0 : epochsAfter > 1;
    }

    /**
     * Puts a producer whose transaction committed into the pool, when the broker bumped its epoch at the
     * commit (so the next transaction of the id has an epoch of its own) and the pool has room; closes it
     * otherwise.
     */
    private void recycle(String transactionalId, short epochAtPreCommit, KafkaProducer<byte[], byte[]> producer) {
        boolean epochBumped;
        try {
            epochBumped = epochAtPreCommit >= 0 && KafkaInternals.producerIdAndEpoch(producer).epoch() > epochAtPreCommit;
        } catch (RuntimeException e) {
            epochBumped = false;
        }
        if (epochBumped && idle.size() < POOL_SIZE) {
            idle.addLast(new Pooled(transactionalId, producer));
        } else {
            closeQuietly(producer, Duration.ofSeconds(5));
        }
    }

    /**
     * The {@code debug.inject-delay.before-commit} kill point: before the first commit of a transaction this
     * instance pre-committed, waits {@link KafkaSinkSettings#holdBeforeCommitMs} on the task thread.
     *
     * @throws org.apache.kafka.common.errors.InterruptException if interrupted (task cancelled); the flag is restored
     */
    private void holdBeforeFirstCommit(KafkaTransaction txn) {
        if (settings.holdBeforeCommitMs() <= 0 || heldBeforeCommit) {
            return;
        }
        heldBeforeCommit = true;
        LOG.warn("{} holds {} ms after the pre-commit and before the commit of {} (debug.inject-delay.before-commit)",
                describe(), settings.holdBeforeCommitMs(), txn.transactionalId());
        try {
            Thread.sleep(settings.holdBeforeCommitMs());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new org.apache.kafka.common.errors.InterruptException(e);
        }
    }

    /** Test seam: {@code hook} runs after a recorded transaction was resumed and before its commit is sent. */
    void beforeResumedCommit(Runnable hook) {
        this.beforeResumedCommit = hook;
    }

    /** @return producers created so far, each with an {@code initTransactions()} (tests) */
    int producersCreated() {
        return producersCreated;
    }

    /** @return the broker's view of the transactional id, or null if the broker does not know it */
    private TransactionDescription describe(String transactionalId) {
        if (admin == null) {
            admin = PluginClassLoader.call(() -> Admin.create(adminProperties()));
        }
        try {
            return admin.describeTransactions(List.of(transactionalId)).all().get(60, TimeUnit.SECONDS).get(transactionalId);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof TransactionalIdNotFoundException) {
                return null;
            }
            throw new org.apache.kafka.common.KafkaException(describe() + " cannot describe transaction " + transactionalId
                    + " at " + settings.bootstrapServers() + ": " + e.getCause(), e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new org.apache.kafka.common.KafkaException(describe() + " cannot describe transaction " + transactionalId
                    + " at " + settings.bootstrapServers() + " within 60 s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new org.apache.kafka.common.errors.InterruptException(e);
        }
    }

    private void lost(KafkaTransaction txn, String brokerSays, RuntimeException e) {
        long ageMs = clock.getAsLong() - txn.startedAtMs();
        String message = describe() + ": recorded transaction " + txn.transactionalId() + " (producer id " + txn.producerId()
                + ", epoch " + txn.epoch() + ", " + txn.records() + " records) can no longer be committed: the broker reports "
                + brokerSays + ". " + whyLost(ageMs, brokerSays.startsWith(NO_SUCH_ID)) + " Its records are lost"
                + " (the output misses them; a restart cannot bring them back).";
        if (settings.ignoreLostTransactions()) {
            LOG.error("{} Skipping it because ignore-lost-transactions is set.", message);
            return;
        }
        LOG.error(message);
        throw new SuppressRestartsException(message + " To accept the loss and resume the job from its last checkpoint,"
                + " set ignore-lost-transactions=true on the sink; to avoid it, raise transaction-timeout-ms (and the broker's"
                + " transaction.max.timeout.ms) above the longest outage.", e);
    }

    /**
     * What the transaction's age says about why the broker no longer has it, for the lost-transaction error.
     *
     * @param ageMs ms from the transaction's start (the crashed run's clock) to now (this run's clock)
     * @param idUnknown whether the broker does not know the transactional id at all
     */
    private String whyLost(long ageMs, boolean idUnknown) {
        long timeoutMs = settings.transactionTimeout().toMillis();
        String age = "It was opened " + ageMs / 1000 + " s ago (" + ageMs + " ms by this machine's clock)";
        if (idUnknown) {
            return age + ": the broker forgets a transactional id that saw no transaction for transactional.id.expiration.ms"
                    + " (broker setting, default 7 days), after aborting its open transaction at transaction-timeout-ms ("
                    + timeoutMs + " ms).";
        }
        if (ageMs >= timeoutMs) {
            return age + ", longer than transaction-timeout-ms (" + timeoutMs + " ms): the broker aborted it when the timeout"
                    + " passed, while the job was down or its checkpoints did not complete (FLINK-7784).";
        }
        return age + ", less than transaction-timeout-ms (" + timeoutMs + " ms), so the broker's timeout did not abort it:"
                + " another producer of the same transactional id aborted or fenced it (a second job or run with the same"
                + " transactional-id-prefix, job name and operator id?), or the clocks of the two runs disagree.";
    }

    /** Aborts a live transaction; fences a foreign one by initializing a producer of its id. */
    @Override
    public void abort(KafkaTransaction txn) {
        Live l = live.remove(txn.transactionalId());
        if (l != null) {
            try {
                l.producer.abortTransaction();
            } catch (RuntimeException e) {
                LOG.debug("{} could not abort {} cleanly ({}); the broker aborts it at its timeout or the next run fences it",
                        describe(), txn.transactionalId(), e.toString());
            } finally {
                closeQuietly(l.producer, Duration.ZERO);
            }
            return;
        }
        fence(txn.transactionalId());
    }

    /**
     * Fences every ongoing transaction at the broker that belongs to this subtask (or to a subtask
     * {@code j >= parallelism} with {@code j % parallelism == subtaskIndex}) and is neither in
     * {@code keep} nor live here.
     *
     * @throws org.apache.kafka.common.KafkaException or {@link IllegalStateException} if the broker cannot list transactions
     */
    @Override
    public void abortLeftovers(Collection<KafkaTransaction> keep) throws Exception {
        Set<String> protectedIds = new HashSet<>(live.keySet());
        idle.forEach(p -> protectedIds.add(p.transactionalId()));
        keep.forEach(t -> protectedIds.add(t.transactionalId()));
        Pattern own = Pattern.compile(Pattern.quote(prefix) + "-(\\d+)-(\\d+)");
        Collection<TransactionListing> listings;
        try (Admin admin = PluginClassLoader.call(() -> Admin.create(adminProperties()))) {
            listings = admin.listTransactions(new ListTransactionsOptions().filterStates(
                    List.of(TransactionState.ONGOING, TransactionState.PREPARE_ABORT, TransactionState.PREPARE_COMMIT)))
                    .all().get(60, TimeUnit.SECONDS);
        }
        int fenced = 0;
        for (TransactionListing t : listings) {
            Matcher m = own.matcher(t.transactionalId());
            if (!m.matches() || protectedIds.contains(t.transactionalId()) || t.state() != TransactionState.ONGOING) {
                continue;
            }
            int j = Integer.parseInt(m.group(1));
            int p = context.parallelism();
            if (j == context.subtaskIndex() || (j >= p && j % p == context.subtaskIndex())) {
                fence(t.transactionalId());
                fenced++;
            }
        }
        if (fenced > 0) {
            LOG.info("{} aborted {} leftover transaction(s) of an earlier run", describe(), fenced);
        }
    }

    private void fence(String transactionalId) {
        try (KafkaProducer<byte[], byte[]> producer = producer(transactionalId)) {
            producer.initTransactions(); // bumps the epoch: the broker aborts what the id left open
        }
        LOG.debug("{} fenced transactional id {}", describe(), transactionalId);
    }

    @Override
    public TypeSerializer<KafkaTransaction> transactionSerializer() {
        return KafkaTransaction.SERIALIZER;
    }

    /**
     * Closes every producer without aborting (a zero-timeout close sends nothing more): pre-committed
     * transactions stay open at the broker for a restored run to commit; the rest are fenced by it.
     */
    @Override
    public void close() {
        for (Live l : live.values()) {
            closeQuietly(l.producer, Duration.ZERO);
        }
        live.clear();
        for (Pooled p : idle) {
            closeQuietly(p.producer(), Duration.ZERO);
        }
        idle.clear();
        if (admin != null) {
            try {
                admin.close(Duration.ZERO);
            } catch (RuntimeException e) {
                LOG.debug("{}: closing the admin client was cut short ({})", describe(), e.toString());
            }
            admin = null;
        }
    }

    /** Warns once per transaction about pre-committed transactions nearing the broker's timeout. */
    private void warnAboutOldTransactions() {
        writesSinceAgeCheck = 0;
        long now = clock.getAsLong();
        long limit = settings.transactionTimeout().toMillis() * AGE_WARNING_PERCENT / 100;
        for (Live l : live.values()) {
            if (l.preCommitted && !l.warned && now - l.handle.startedAtMs() > limit) {
                l.warned = true;
                ageWarnings++;
                LOG.warn("{}: transaction {} has waited {} s for its checkpoint to complete, more than {}% of"
                        + " transaction-timeout-ms ({} ms); if the broker's timeout passes first, it aborts the transaction"
                        + " and its {} records are lost (checkpoints are not completing: see the job's checkpoint log)",
                        describe(), l.handle.transactionalId(), (now - l.handle.startedAtMs()) / 1000, AGE_WARNING_PERCENT,
                        settings.transactionTimeout().toMillis(), l.records);
            }
        }
    }

    /** @return how many transactions were reported as nearing the transaction timeout (tests) */
    int ageWarnings() {
        return ageWarnings;
    }

    private KafkaProducer<byte[], byte[]> producer(String transactionalId) {
        Properties p = settings.clientProperties().applyTo(new Properties());
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int) settings.transactionTimeout().toMillis());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, transactionalId);
        return PluginClassLoader.call(() -> new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer()));
    }

    private Properties adminProperties() {
        Properties p = settings.clientProperties().applyTo(new Properties());
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        return p;
    }

    private Live live(KafkaTransaction txn, String action) {
        Live l = live.get(txn.transactionalId());
        if (l == null) {
            throw new IllegalStateException(describe() + " cannot " + action + " unknown or finished transaction " + txn.transactionalId());
        }
        return l;
    }

    private static String sanitize(String s) {
        return s.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    private String describe() {
        return context == null ? "kafka-2pc sink" : "kafka-2pc sink " + context.operatorId() + " subtask "
                + context.subtaskIndex() + " of job " + context.jobName();
    }

    /** A producer in the pool and the transactional id it was initialized with. */
    private record Pooled(String transactionalId, KafkaProducer<byte[], byte[]> producer) {
    }

    /**
     * One live transaction and its producer. Task thread only, except {@link #sendError}, which the
     * producer's I/O thread sets in the send callback.
     */
    private static final class Live implements org.apache.kafka.clients.producer.Callback {
        final KafkaProducer<byte[], byte[]> producer;
        long records;
        boolean preCommitted;
        boolean warned;
        KafkaTransaction handle;
        volatile Exception sendError;

        Live(KafkaProducer<byte[], byte[]> producer) {
            this.producer = producer;
        }

        @Override
        public void onCompletion(org.apache.kafka.clients.producer.RecordMetadata metadata, Exception exception) {
            if (exception != null && sendError == null) {
                sendError = exception;
            }
        }

        void throwSendError() {
            Exception e = sendError;
            if (e != null) {
                throw new org.apache.kafka.common.KafkaException("a record of the transaction could not be sent: " + e, e);
            }
        }
    }
}
