package io.weir.runtime.io.network;

import io.weir.api.Row;
import io.weir.api.RowSerializer;

import java.io.IOException;

/**
 * Reads the rows of one network buffer in order (each a 4-byte length and the row's bytes; rows
 * never span buffers, see {@link NetworkBuffer}) and recycles the buffer when it is exhausted.
 * Task thread only; reused for every buffer.
 */
public final class RecordDeserializer {
    /** Task thread only. */
    private NetworkBuffer buffer;
    /** Task thread only. */
    private int channel = -1;
    /** Task thread only. */
    private int pos;
    /** Task thread only. */
    private int lastRecordBytes;

    /** Starts reading {@code buffer}, which came through {@code channel}. */
    public void setBuffer(NetworkBuffer buffer, int channel) {
        if (this.buffer != null) {
            throw new IllegalStateException("previous buffer of channel " + this.channel + " not fully read");
        }
        this.buffer = buffer;
        this.channel = channel;
        this.pos = 0;
    }

    /** @return whether a buffer is being read */
    public boolean hasBuffer() {
        return buffer != null;
    }

    /** @return the channel of the current buffer */
    public int channel() {
        return channel;
    }

    /** @return bytes of the last row returned, including its length prefix */
    public int lastRecordBytes() {
        return lastRecordBytes;
    }

    /**
     * @return the next row, a new one; recycles the buffer after its last row
     * @throws IOException if the bytes are not a row of the serializer's schema
     */
    public Row next(RowSerializer serializer) throws IOException {
        return next(serializer, null);
    }

    /**
     * Reads the next row; recycles the buffer after its last row.
     *
     * @param serializer the serializer of the channel's rows
     * @param reuse null for a new row per call, or a reusable row of the serializer's schema to read into
     *        ({@link RowSerializer#deserializeInto}): then every call returns that same row, overwritten
     * @return the row read
     * @throws IOException if the bytes are not a row of the serializer's schema
     */
    public Row next(RowSerializer serializer, Row.Reusable reuse) throws IOException {
        byte[] seg = buffer.segment();
        int len = ((seg[pos] & 0xff) << 24) | ((seg[pos + 1] & 0xff) << 16) | ((seg[pos + 2] & 0xff) << 8) | (seg[pos + 3] & 0xff);
        Row row = reuse == null ? serializer.deserialize(seg, pos + 4, len) : serializer.deserializeInto(seg, pos + 4, len, reuse);
        pos += 4 + len;
        lastRecordBytes = 4 + len;
        if (pos >= buffer.size()) {
            NetworkBuffer done = buffer;
            buffer = null;
            done.recycle();
        }
        return row;
    }

    /** @return a copy of the current buffer's rows not read yet (whole rows), or null if there is no buffer */
    public byte[] unconsumed() {
        return buffer == null ? null : java.util.Arrays.copyOfRange(buffer.segment(), pos, buffer.size());
    }

    /** Recycles the current buffer unread (task cancellation). */
    public void release() {
        if (buffer != null) {
            NetworkBuffer b = buffer;
            buffer = null;
            b.recycle();
        }
    }
}
