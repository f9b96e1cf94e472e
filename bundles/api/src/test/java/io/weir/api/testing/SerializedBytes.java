package io.weir.api.testing;

import io.weir.api.serialization.TypeSerializer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Round trips values through a {@link TypeSerializer} and a byte array, as a checkpoint would. Stateless. */
final class SerializedBytes {
    private SerializedBytes() {
    }

    /**
     * @return {@code value} in the serializer's binary form
     * @throws UncheckedIOException if the serializer fails
     */
    static <T> byte[] write(TypeSerializer<T> serializer, T value) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            serializer.serialize(value, new DataOutputStream(bytes));
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialize " + value, e);
        }
    }

    /**
     * @return the value {@code bytes} hold
     * @throws UncheckedIOException if the serializer fails (e.g. the bytes are truncated)
     */
    static <T> T read(TypeSerializer<T> serializer, byte[] bytes) {
        try {
            return serializer.deserialize(new DataInputStream(new ByteArrayInputStream(bytes)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot deserialize " + bytes.length + " bytes", e);
        }
    }
}
