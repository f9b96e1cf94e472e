package io.weir.plugin.basic.discard;

import io.weir.api.serialization.TypeSerializer;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * The handle of one {@link DiscardSink} transaction, stored in checkpoints. It holds nothing to
 * commit; the sequence number only makes handles distinguishable in logs and tests.
 *
 * @param sequence 0-based number of the transaction within its sink subtask, >= 0
 */
public record DiscardTransaction(long sequence) {
    /** Binary form: the sequence as 8 bytes, big-endian. Stable; stateless and thread-safe. */
    public static final TypeSerializer<DiscardTransaction> SERIALIZER = new TypeSerializer<>() {
        @Override
        public void serialize(DiscardTransaction value, DataOutput out) throws IOException {
            out.writeLong(value.sequence);
        }

        @Override
        public DiscardTransaction deserialize(DataInput in) throws IOException {
            long sequence = in.readLong();
            if (sequence < 0) {
                throw new IOException("invalid discard transaction handle: negative sequence " + sequence);
            }
            return new DiscardTransaction(sequence);
        }
    };

    /** @throws IllegalArgumentException if {@code sequence} is negative */
    public DiscardTransaction {
        if (sequence < 0) {
            throw new IllegalArgumentException("discard transaction sequence must be >= 0, got " + sequence);
        }
    }
}
