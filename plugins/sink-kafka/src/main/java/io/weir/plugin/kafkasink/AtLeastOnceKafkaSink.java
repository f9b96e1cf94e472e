package io.weir.plugin.kafkasink;

import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.operator.OperatorContext;
import io.weir.api.serialization.TypeSerializer;
import io.weir.api.sink.TwoPhaseCommittingSink;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collection;
import java.util.Properties;

/**
 * {@code delivery-guarantee: at-least-once} of the {@code kafka-2pc} type: one idempotent, non-transactional
 * producer per subtask; records are visible to every reader as soon as the broker has them. At each checkpoint's
 * barrier ({@link #preCommit}) the producer is flushed and a failed send fails the task, so every record before
 * the barrier is in the topic when the checkpoint completes; after a failure the records since the restored
 * checkpoint are written again (duplicates, never losses). There is nothing to commit or abort: the
 * "transactions" are only the checkpoint's bookkeeping of how many records were flushed.
 *
 * <p>All methods run on the sink task's thread; {@link #sendError} is also set by the producer's I/O thread.
 */
final class AtLeastOnceKafkaSink implements TwoPhaseCommittingSink<KafkaTransaction>, Callback {
    private static final Logger LOG = LoggerFactory.getLogger(AtLeastOnceKafkaSink.class);

    private final KafkaSinkSettings settings;
    private final RecordEncoder encoder;

    // Task thread only.
    private OperatorContext context;
    private KafkaProducer<byte[], byte[]> producer;
    private long sequence;
    private long records;
    private volatile Exception sendError;

    AtLeastOnceKafkaSink(KafkaSinkSettings settings, Schema schema) {
        this.settings = settings;
        this.encoder = new RecordEncoder(settings, schema);
    }

    /** Creates the producer (connects lazily, at the first send). */
    @Override
    public void open(OperatorContext context) {
        this.context = context;
        Properties p = settings.clientProperties().applyTo(new Properties());
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "weir-" + context.jobName() + "-" + context.operatorId() + "-" + context.subtaskIndex());
        producer = PluginClassLoader.call(() -> new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer()));
        LOG.info("{} writes at-least-once to topic {} at {}", describe(), settings.topic(), settings.bootstrapServers());
    }

    /** @return a bookkeeping handle; nothing is opened at the broker */
    @Override
    public KafkaTransaction beginTransaction() {
        records = 0;
        return new KafkaTransaction("at-least-once-" + context.subtaskIndex() + "-" + sequence++, -1, (short) -1, 0,
                System.currentTimeMillis());
    }

    /**
     * Sends the row (asynchronously).
     *
     * @throws KafkaException if an earlier send failed
     */
    @Override
    public void write(KafkaTransaction txn, Row row) {
        throwSendError();
        producer.send(new ProducerRecord<>(settings.topic(), encoder.key(row), encoder.value(row)), this);
        records++;
    }

    /**
     * Flushes every record sent so far to the broker.
     *
     * @throws KafkaException if a send failed
     */
    @Override
    public KafkaTransaction preCommit(KafkaTransaction txn) {
        producer.flush();
        throwSendError();
        return new KafkaTransaction(txn.transactionalId(), -1, (short) -1, records, txn.startedAtMs());
    }

    /** Nothing to do: the records are visible since {@link #preCommit}. */
    @Override
    public void commit(KafkaTransaction txn) {
    }

    /** Nothing to do: records already sent stay in the topic (at-least-once). */
    @Override
    public void abort(KafkaTransaction txn) {
    }

    /** Nothing to do: this sink leaves no transactions behind. */
    @Override
    public void abortLeftovers(Collection<KafkaTransaction> keep) {
    }

    @Override
    public TypeSerializer<KafkaTransaction> transactionSerializer() {
        return KafkaTransaction.SERIALIZER;
    }

    /**
     * Closes the producer without waiting: records not flushed yet were not covered by a completed checkpoint, so a
     * restored run writes them again (and close runs on a cancelled, interrupted task thread).
     */
    @Override
    public void close() {
        if (producer != null) {
            producer.close(Duration.ZERO);
            producer = null;
        }
    }

    /** Producer I/O thread: keeps the first send failure for the task thread to throw. */
    @Override
    public void onCompletion(RecordMetadata metadata, Exception exception) {
        if (exception != null && sendError == null) {
            sendError = exception;
        }
    }

    private void throwSendError() {
        Exception e = sendError;
        if (e != null) {
            throw new KafkaException(describe() + ": a record could not be sent to topic " + settings.topic() + ": " + e, e);
        }
    }

    private String describe() {
        return "kafka-2pc sink (at-least-once) " + context.operatorId() + " subtask " + context.subtaskIndex() + " of job "
                + context.jobName();
    }
}
