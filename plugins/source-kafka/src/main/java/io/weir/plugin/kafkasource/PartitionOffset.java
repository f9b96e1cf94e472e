package io.weir.plugin.kafkasource;

import io.weir.api.serialization.Serializers;
import io.weir.api.serialization.TypeSerializer;
import org.apache.kafka.common.TopicPartition;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * One partition's read position, an element of the source's operator list state.
 *
 * @param topic the topic
 * @param partition the partition, >= 0
 * @param nextOffset the offset of the next record to read, >= 0
 * @param stopOffset in bounded mode the end offset read at the first start (the partition is done when
 *        {@code nextOffset >= stopOffset}); -1 when unbounded
 */
public record PartitionOffset(String topic, int partition, long nextOffset, long stopOffset) {
    /** Binary form: topic ({@link Serializers#writeString}), partition (int), next offset (long), stop offset (long). Stable. */
    public static final TypeSerializer<PartitionOffset> SERIALIZER = new TypeSerializer<>() {
        @Override
        public void serialize(PartitionOffset v, DataOutput out) throws IOException {
            Serializers.writeString(v.topic, out);
            out.writeInt(v.partition);
            out.writeLong(v.nextOffset);
            out.writeLong(v.stopOffset);
        }

        @Override
        public PartitionOffset deserialize(DataInput in) throws IOException {
            String topic = Serializers.readString(in);
            int partition = in.readInt();
            long next = in.readLong();
            long stop = in.readLong();
            try {
                return new PartitionOffset(topic, partition, next, stop);
            } catch (IllegalArgumentException e) {
                throw new IOException("invalid Kafka partition offset in state: " + e.getMessage(), e);
            }
        }
    };

    /** @throws IllegalArgumentException if a value is out of range */
    public PartitionOffset {
        if (topic == null || topic.isEmpty() || partition < 0 || nextOffset < 0 || stopOffset < -1) {
            throw new IllegalArgumentException("bad partition offset " + topic + "-" + partition + " next " + nextOffset + " stop " + stopOffset);
        }
    }

    /** @return the partition as a Kafka {@link TopicPartition} */
    TopicPartition topicPartition() {
        return new TopicPartition(topic, partition);
    }

    /** @return whether a bounded partition has been read to its stop offset */
    boolean done() {
        return stopOffset >= 0 && nextOffset >= stopOffset;
    }
}
