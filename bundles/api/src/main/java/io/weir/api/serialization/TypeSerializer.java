package io.weir.api.serialization;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Writes values of one type to a binary stream and reads them back: used for network records,
 * keyed and operator state, and two-phase-commit transaction handles.
 *
 * <p>Implementations must be stateless and thread-safe, and the binary form must be stable across
 * versions of the plugin that defines it, since it ends up in checkpoints. A value put into state
 * may be modified afterwards only through a read-modify-write of {@link io.weir.api.state.ValueState}
 * (see there); for that, {@link #copy} must return a copy that shares nothing mutable with its argument.
 *
 * @param <T> the value type
 */
public interface TypeSerializer<T> {
    /**
     * Writes one value.
     *
     * @throws IOException if the stream fails
     */
    void serialize(T value, DataOutput out) throws IOException;

    /**
     * Reads one value written by {@link #serialize}.
     *
     * @throws IOException if the stream fails or holds bytes that are not a value of this type
     */
    T deserialize(DataInput in) throws IOException;

    /**
     * Returns a copy of {@code value} that shares no mutable part with it, so that changing one does not
     * change the other. Keyed heap state calls it when a value that a running snapshot still has to write
     * is read for update ({@link io.weir.api.state.ValueState#value()}), at most once per value and snapshot.
     *
     * <p>A serializer of an immutable type returns {@code value} itself. The default writes the value with
     * {@link #serialize} and reads it back with {@link #deserialize}: correct for any serializer whose round
     * trip reproduces the value, but slower than a type's own copy; a mutable type should override it.
     *
     * @param value the value to copy, non-null
     * @return a value equal to {@code value}
     * @throws UncheckedIOException if the round trip of the default fails (the serializer cannot read what it
     *         wrote)
     */
    default T copy(T value) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
            DataOutputStream out = new DataOutputStream(bytes);
            serialize(value, out);
            out.flush();
            return deserialize(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        } catch (IOException e) {
            throw new UncheckedIOException("copying a value by serializing it failed (" + getClass().getName()
                    + " cannot read back what it wrote): " + e.getMessage(), e);
        }
    }
}
