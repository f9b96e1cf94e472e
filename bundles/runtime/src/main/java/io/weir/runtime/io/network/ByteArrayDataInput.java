package io.weir.runtime.io.network;

import java.io.DataInput;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A {@link DataInput} over a byte range, without copying. Reused per record by the task thread.
 * Reading past the range throws {@link EOFException}.
 */
public final class ByteArrayDataInput implements DataInput {
    /** Task thread only. */
    private byte[] data;
    /** Task thread only. */
    private int pos;
    /** Task thread only. */
    private int limit;

    /** Points the input at {@code data[offset, offset+length)}. */
    public void reset(byte[] data, int offset, int length) {
        this.data = data;
        this.pos = offset;
        this.limit = offset + length;
    }

    /** @return the read position */
    public int position() {
        return pos;
    }

    private void need(int n) throws EOFException {
        if (pos + n > limit) {
            throw new EOFException("record needs " + n + " more bytes at " + pos + " but ends at " + limit);
        }
    }

    @Override
    public void readFully(byte[] b) throws IOException {
        readFully(b, 0, b.length);
    }

    @Override
    public void readFully(byte[] b, int off, int len) throws IOException {
        need(len);
        System.arraycopy(data, pos, b, off, len);
        pos += len;
    }

    @Override
    public int skipBytes(int n) {
        int skip = Math.min(n, limit - pos);
        pos += skip;
        return skip;
    }

    @Override
    public boolean readBoolean() throws IOException {
        return readByte() != 0;
    }

    @Override
    public byte readByte() throws IOException {
        need(1);
        return data[pos++];
    }

    @Override
    public int readUnsignedByte() throws IOException {
        return readByte() & 0xff;
    }

    @Override
    public short readShort() throws IOException {
        need(2);
        short v = (short) (((data[pos] & 0xff) << 8) | (data[pos + 1] & 0xff));
        pos += 2;
        return v;
    }

    @Override
    public int readUnsignedShort() throws IOException {
        return readShort() & 0xffff;
    }

    @Override
    public char readChar() throws IOException {
        return (char) readShort();
    }

    @Override
    public int readInt() throws IOException {
        need(4);
        int v = ((data[pos] & 0xff) << 24) | ((data[pos + 1] & 0xff) << 16) | ((data[pos + 2] & 0xff) << 8) | (data[pos + 3] & 0xff);
        pos += 4;
        return v;
    }

    @Override
    public long readLong() throws IOException {
        return ((long) readInt() << 32) | (readInt() & 0xffffffffL);
    }

    @Override
    public float readFloat() throws IOException {
        return Float.intBitsToFloat(readInt());
    }

    @Override
    public double readDouble() throws IOException {
        return Double.longBitsToDouble(readLong());
    }

    @Override
    public String readLine() {
        throw new UnsupportedOperationException("readLine is not part of Weir's binary formats");
    }

    @Override
    public String readUTF() throws IOException {
        int n = readUnsignedShort();
        need(n);
        String s = new String(data, pos, n, StandardCharsets.UTF_8);
        pos += n;
        return s;
    }
}
