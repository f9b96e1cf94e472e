package io.weir.plugin.kafkasink;

import io.weir.api.serialization.Serializers;
import io.weir.api.serialization.TypeSerializer;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * The handle of one Kafka transaction of a {@link KafkaSink}, recorded in checkpoints: enough to
 * commit it from another process by resuming it ({@link KafkaInternals#resumeTransaction}).
 *
 * @param transactionalId {@code <prefix>-<subtask>-<n>}, unique per transaction of a sink
 * @param producerId the producer id the broker assigned, or -1 before pre-commit
 * @param epoch the producer epoch, or -1 before pre-commit
 * @param records records sent in the transaction, as known at pre-commit (0 before); a transaction
 *        without records was never started at the broker and commits as a no-op
 * @param startedAtMs wall-clock time the transaction was opened, ms since the epoch: its age is
 *        compared with the transaction timeout (FLINK-7784)
 */
public record KafkaTransaction(String transactionalId, long producerId, short epoch, long records, long startedAtMs) {
    /** Binary form: the id as {@link Serializers#writeString}, producer id (long), epoch (short), records (long), start (long). */
    public static final TypeSerializer<KafkaTransaction> SERIALIZER = new TypeSerializer<>() {
        @Override
        public void serialize(KafkaTransaction value, DataOutput out) throws IOException {
            Serializers.writeString(value.transactionalId, out);
            out.writeLong(value.producerId);
            out.writeShort(value.epoch);
            out.writeLong(value.records);
            out.writeLong(value.startedAtMs);
        }

        @Override
        public KafkaTransaction deserialize(DataInput in) throws IOException {
            String id = Serializers.readString(in);
            long pid = in.readLong();
            short epoch = in.readShort();
            long records = in.readLong();
            long started = in.readLong();
            try {
                return new KafkaTransaction(id, pid, epoch, records, started);
            } catch (IllegalArgumentException e) {
                throw new IOException("invalid Kafka transaction handle: " + e.getMessage(), e);
            }
        }
    };

    /** @throws IllegalArgumentException if the id is empty or the record count negative */
    public KafkaTransaction {
        if (transactionalId == null || transactionalId.isEmpty()) {
            throw new IllegalArgumentException("transactional id must not be empty");
        }
        if (records < 0) {
            throw new IllegalArgumentException("record count must be >= 0, got " + records);
        }
    }

    /** @return this handle with the producer identity and record count known at pre-commit */
    KafkaTransaction preCommitted(KafkaInternals.ProducerIdAndEpoch id, long recordCount) {
        return new KafkaTransaction(transactionalId, id.producerId(), id.epoch(), recordCount, startedAtMs);
    }
}
