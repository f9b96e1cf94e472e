package io.weir.benchmarks.jmh;

import java.io.DataOutput;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable {@link DataOutput} into a byte array, reusable after {@link #clear()}: what {@link RowSerializationBenchmark}
 * serializes into (the record path writes into network buffers with {@code RowSerializer#serializeInto}). One thread at a time.
 */
final class ByteArrayDataOutput implements DataOutput {
    /** Benchmark thread only. */
    private byte[] buf = new byte[256];
    /** Benchmark thread only. */
    private int pos;

    /** Forgets the content. */
    public void clear() {
        pos = 0;
    }

    /** @return the backing array; bytes [0, length()) are valid */
    public byte[] array() {
        return buf;
    }

    /** @return bytes written */
    public int length() {
        return pos;
    }

    private void ensure(int n) {
        if (pos + n > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + n));
        }
    }

    @Override
    public void write(int b) {
        ensure(1);
        buf[pos++] = (byte) b;
    }

    @Override
    public void write(byte[] b) {
        write(b, 0, b.length);
    }

    @Override
    public void write(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, buf, pos, len);
        pos += len;
    }

    @Override
    public void writeBoolean(boolean v) {
        write(v ? 1 : 0);
    }

    @Override
    public void writeByte(int v) {
        write(v);
    }

    @Override
    public void writeShort(int v) {
        ensure(2);
        buf[pos++] = (byte) (v >>> 8);
        buf[pos++] = (byte) v;
    }

    @Override
    public void writeChar(int v) {
        writeShort(v);
    }

    @Override
    public void writeInt(int v) {
        ensure(4);
        buf[pos++] = (byte) (v >>> 24);
        buf[pos++] = (byte) (v >>> 16);
        buf[pos++] = (byte) (v >>> 8);
        buf[pos++] = (byte) v;
    }

    @Override
    public void writeLong(long v) {
        writeInt((int) (v >>> 32));
        writeInt((int) v);
    }

    @Override
    public void writeFloat(float v) {
        writeInt(Float.floatToIntBits(v));
    }

    @Override
    public void writeDouble(double v) {
        writeLong(Double.doubleToLongBits(v));
    }

    @Override
    public void writeBytes(String s) {
        for (int i = 0; i < s.length(); i++) {
            write(s.charAt(i));
        }
    }

    @Override
    public void writeChars(String s) {
        for (int i = 0; i < s.length(); i++) {
            writeChar(s.charAt(i));
        }
    }

    @Override
    public void writeUTF(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > 0xffff) {
            throw new IllegalArgumentException("string of " + b.length + " UTF-8 bytes exceeds writeUTF's 65535");
        }
        writeShort(b.length);
        write(b);
    }
}
