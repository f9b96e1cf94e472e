package io.weir.plugin.kafkasink;

import org.apache.kafka.clients.producer.KafkaProducer;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * The only place that reaches into kafka-clients internals (pinned to the version in the parent
 * POM, {@code kafka.version}): reading a transactional producer's producer id and epoch, and
 * resuming a transaction that another producer (of an earlier, possibly crashed, process) left open,
 * so that it can be committed (shared RECIPES.md §3c; the way Flink's Kafka connector does it).
 * Kafka 4.4 has no public API for this: KIP-939's {@code prepareTransaction}/{@code completeTransaction}
 * are not released. {@code KafkaInternalsTest} runs both against a real broker, so an upgrade that
 * renames a field fails the build instead of a recovery in production.
 *
 * <p>Stateless; every method synchronizes on the producer's {@code TransactionManager}, as its own
 * methods do.
 */
final class KafkaInternals {
    /** The kafka-clients version whose internals this class was written and tested against. */
    static final String PINNED_VERSION = "4.4.0";
    private static final String TM = "org.apache.kafka.clients.producer.internals.TransactionManager";
    private static final String PID_AND_EPOCH = "org.apache.kafka.common.utils.internals.ProducerIdAndEpoch";

    private KafkaInternals() {
    }

    /** A transactional producer's identity: what the broker fences and commits by. */
    record ProducerIdAndEpoch(long producerId, short epoch) {
    }

    /**
     * @param producer a transactional producer after {@code initTransactions()}
     * @return its current producer id and epoch
     * @throws IllegalStateException if the kafka-clients internals differ from the pinned version's
     */
    static ProducerIdAndEpoch producerIdAndEpoch(KafkaProducer<?, ?> producer) {
        try {
            Object tm = field(producer, "transactionManager");
            synchronized (tm) {
                Object pe = field(tm, "producerIdAndEpoch");
                Class<?> c = pe.getClass();
                return new ProducerIdAndEpoch(c.getField("producerId").getLong(pe), c.getField("epoch").getShort(pe));
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw incompatible("read the producer id and epoch", e);
        }
    }

    /**
     * Puts a fresh producer (created with the transactional id of the transaction, and on which
     * {@code initTransactions()} was NOT called: that would abort the transaction) into the state
     * of a producer in the middle of transaction {@code id}, so that {@code commitTransaction()}
     * commits it. Committing a transaction that is already committed this way is a no-op at the broker.
     *
     * <p>The producer first learns the broker's transaction protocol version (a metadata request for {@code topic},
     * which connects it and brings the broker's finalized features), and takes it as {@code beginTransaction()} would.
     * Without this the version is learnt in the middle of {@code commitTransaction()}, if the connection happens to be
     * up by then: the commit is sent in the old protocol (no epoch bump at the broker) and the client then bumps the
     * epoch with an {@code InitProducerId} (its "client-side epoch bump" on a protocol upgrade), which leaves the id
     * {@code Empty} at the broker instead of {@code CompleteCommit} — a committed transaction that a later check took
     * for a lost one. With it, a resumed commit leaves the broker in the state a live producer's commit does.
     *
     * @param producer the fresh producer
     * @param id the recorded producer id and epoch
     * @param topic a topic the producer may describe (the sink's topic)
     * @throws IllegalStateException if the kafka-clients internals differ from the pinned version's
     * @throws org.apache.kafka.common.errors.TimeoutException if the broker cannot be reached within {@code max.block.ms}
     */
    static void resumeTransaction(KafkaProducer<?, ?> producer, ProducerIdAndEpoch id, String topic) {
        producer.partitionsFor(topic);
        try {
            Object tm = field(producer, "transactionManager");
            synchronized (tm) {
                Class<?> stateClass = Class.forName(TM + "$State", false, tm.getClass().getClassLoader());
                Method transitionTo = tm.getClass().getDeclaredMethod("transitionTo", stateClass);
                transitionTo.setAccessible(true);
                transitionTo.invoke(tm, state(stateClass, "INITIALIZING"));
                Object partitions = field(tm, "txnPartitionMap");
                Method reset = partitions.getClass().getDeclaredMethod("reset");
                reset.setAccessible(true);
                reset.invoke(partitions);
                Class<?> peClass = Class.forName(PID_AND_EPOCH, false, tm.getClass().getClassLoader());
                Constructor<?> ctor = peClass.getDeclaredConstructor(long.class, short.class);
                ctor.setAccessible(true);
                setField(tm, "producerIdAndEpoch", ctor.newInstance(id.producerId(), id.epoch()));
                transitionTo.invoke(tm, state(stateClass, "READY"));
                // as beginTransaction() does: take the broker's protocol version at the start of the transaction
                tm.getClass().getMethod("maybeUpdateTransactionV2Enabled", boolean.class).invoke(tm, true);
                transitionTo.invoke(tm, state(stateClass, "IN_TRANSACTION"));
                setField(tm, "transactionStarted", true);
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw incompatible("resume a transaction", e);
        }
    }

    private static Object state(Class<?> stateClass, String name) {
        for (Object c : stateClass.getEnumConstants()) {
            if (((Enum<?>) c).name().equals(name)) {
                return c;
            }
        }
        throw new IllegalStateException("no TransactionManager state " + name);
    }

    private static Object field(Object target, String name) throws ReflectiveOperationException {
        Field f = target.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(target);
    }

    private static void setField(Object target, String name, Object value) throws ReflectiveOperationException {
        Field f = target.getClass().getDeclaredField(name);
        f.setAccessible(true);
        f.set(target, value);
    }

    private static IllegalStateException incompatible(String what, Exception e) {
        Throwable cause = e instanceof java.lang.reflect.InvocationTargetException ite && ite.getCause() != null ? ite.getCause() : e;
        return new IllegalStateException("cannot " + what + " through kafka-clients internals (" + cause
                + "): the Kafka sink was written against kafka-clients " + PINNED_VERSION + " (kafka.version in the parent POM);"
                + " another kafka-clients version needs the sink adapted (KafkaInternals)", cause);
    }
}
