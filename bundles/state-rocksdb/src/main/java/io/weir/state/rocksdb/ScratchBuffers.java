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
 * Reusable byte buffers of the record path of one RocksDB backend, so reading and writing a state value
 * allocates no streams or intermediate arrays: values are serialized into {@link #out} and passed to RocksDB
 * with offsets; RocksDB copies values into {@link #value} and {@link #in} deserializes from there. Owned by the
 * task thread; the contents are valid until the next use (callers copy what they keep).
 */
final class ScratchBuffers {
    /** Serialization target: {@link Output#data} writes into {@link Output#buffer()}[0, size()). */
    final Output out = new Output();
    /** Deserialization source over {@link #value}. */
    final Input in = new Input();
    /** Where RocksDB copies a value read with {@code get(..., byte[] value, ...)}; grown on demand. */
    byte[] value = new byte[256];

    /** @return {@code value} serialized into {@link #out} (reset first); its bytes are {@code out.buffer()[0, out.size())} */
    <T> Output serialize(TypeSerializer<T> serializer, T value, String what) {
        out.reset();
        try {
            serializer.serialize(value, out.data);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialize " + what + ": " + e.getMessage(), e);
        }
        return out;
    }

    /** @return the value in {@link #value}[0, length) deserialized */
    <T> T deserialize(TypeSerializer<T> serializer, int length, String what) {
        in.reset(value, length);
        try {
            return serializer.deserialize(in.data);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot deserialize " + what + " (serializer changed incompatibly?): "
                    + e.getMessage(), e);
        }
    }

    /** A growable byte buffer without the locking of {@link ByteArrayOutputStream}'s methods. Task thread only. */
    static final class Output extends ByteArrayOutputStream {
        final DataOutputStream data = new DataOutputStream(this);

        Output() {
            this(256);
        }

        /** @param capacity initial size in bytes, >= 0 */
        Output(int capacity) {
            super(capacity);
        }

        /** @return the backing array; bytes {@code [0, size())} are the content */
        byte[] buffer() {
            return buf;
        }

        @Override
        public void write(int b) {
            ensure(1);
            buf[count++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            ensure(len);
            System.arraycopy(b, off, buf, count, len);
            count += len;
        }

        @Override
        public void reset() {
            count = 0;
        }

        /** Writes {@code value} big-endian over the 4 bytes at {@code position} (< size() - 3). */
        void setInt(int position, int value) {
            buf[position] = (byte) (value >>> 24);
            buf[position + 1] = (byte) (value >>> 16);
            buf[position + 2] = (byte) (value >>> 8);
            buf[position + 3] = (byte) value;
        }

        @Override
        public int size() {
            return count;
        }

        private void ensure(int more) {
            if (count + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, count + more));
            }
        }
    }

    /** A byte-array input that can be pointed at another array without allocating. Task thread only. */
    static final class Input extends ByteArrayInputStream {
        final DataInputStream data = new DataInputStream(this);

        Input() {
            super(new byte[0]);
        }

        void reset(byte[] bytes, int length) {
            this.buf = bytes;
            this.pos = 0;
            this.mark = 0;
            this.count = length;
        }
    }
}
