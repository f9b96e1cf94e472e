package io.weir.state.rocksdb;

import io.weir.api.serialization.TypeSerializer;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * Byte helpers for the RocksDB key layout: {@code key group (2 bytes, big-endian) | serialized key |
 * [serialized user key]}. Big-endian key groups under RocksDB's bytewise comparator make one key group,
 * and a range of key groups, a contiguous key range. Serialized keys are self-delimiting (a serializer
 * reads back exactly what it wrote), so no serialized key is a proper prefix of another and all rows of
 * one key share the prefix {@code key group | key}.
 */
final class KeyBytes {
    private KeyBytes() {
    }

    /** @return the 2-byte prefix of {@code keyGroup} */
    static byte[] keyGroupPrefix(int keyGroup) {
        return new byte[] {(byte) (keyGroup >>> 8), (byte) keyGroup};
    }

    /** @return the key group a RocksDB key starts with */
    static int keyGroupOf(byte[] rocksKey) {
        return ((rocksKey[0] & 0xFF) << 8) | (rocksKey[1] & 0xFF);
    }

    /**
     * @return the smallest byte string greater than every string starting with {@code prefix}, or null if
     *         there is none (all bytes 0xFF): the exclusive end of a prefix range
     */
    static byte[] prefixEnd(byte[] prefix) {
        for (int i = prefix.length - 1; i >= 0; i--) {
            if (prefix[i] != (byte) 0xFF) {
                byte[] end = Arrays.copyOf(prefix, i + 1);
                end[i]++;
                return end;
            }
        }
        return null;
    }

    /** @return whether {@code bytes} starts with {@code prefix} */
    static boolean startsWith(byte[] bytes, byte[] prefix) {
        return bytes.length >= prefix.length && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
    }

    /** @return {@code a} followed by {@code b} */
    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /**
     * @return how many bytes, starting at {@code offset}, one value of {@code serializer} occupies
     * @throws IOException if the bytes do not hold a value
     */
    static int lengthOf(TypeSerializer<?> serializer, byte[] bytes, int offset) throws IOException {
        ByteArrayInputStream in = new ByteArrayInputStream(bytes, offset, bytes.length - offset);
        serializer.deserialize(new DataInputStream(in));
        return bytes.length - offset - in.available();
    }

    /** @return {@code value} serialized */
    static <T> byte[] serialize(TypeSerializer<T> serializer, T value) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(32);
        try {
            DataOutputStream out = new DataOutputStream(bytes);
            serializer.serialize(value, out);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialize " + value + ": " + e.getMessage(), e);
        }
        return bytes.toByteArray();
    }

    /** @return the value serialized in {@code bytes[offset..]} */
    static <T> T deserialize(TypeSerializer<T> serializer, byte[] bytes, int offset, String what) {
        try {
            return serializer.deserialize(new DataInputStream(new ByteArrayInputStream(bytes, offset, bytes.length - offset)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot deserialize " + what + " (serializer changed incompatibly?): "
                    + e.getMessage(), e);
        }
    }
}
