package io.weir.runtime.checkpoint;

import io.weir.core.checkpoint.ChannelStateHandle;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.storage.CheckpointStateOutputStream;
import io.weir.core.storage.CheckpointStreamFactory;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes and reads the in-flight data of one channel (format: {@code docs/checkpoint-format.md},
 * "channel-state stream"): per network buffer a 4-byte length and its bytes. Stateless.
 */
public final class ChannelStateWriter {
    private ChannelStateWriter() {
    }

    /**
     * @param channel channel or subpartition index
     * @param buffers the buffers' bytes, in order
     * @return the handle, or null if there were no buffers
     * @throws IOException if the stream cannot be written (e.g. a full disk), naming the file
     */
    public static ChannelStateHandle write(int channel, List<byte[]> buffers, CheckpointStreamFactory streams) throws IOException {
        if (buffers.isEmpty()) {
            return null;
        }
        long data = 0;
        CheckpointStateOutputStream stream = streams.createOutputStream();
        DataOutputStream out = new DataOutputStream(stream);
        try {
            for (byte[] b : buffers) {
                out.writeInt(b.length);
                out.write(b);
                data += b.length;
            }
            out.flush();
            return new ChannelStateHandle(channel, stream.closeAndGetHandle(), data);
        } catch (IOException e) {
            try {
                stream.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * @return the buffers' bytes persisted in {@code handle}, in order
     * @throws IOException if the stream is missing or truncated, naming the channel
     */
    public static List<byte[]> read(ChannelStateHandle handle) throws IOException {
        StreamStateHandle delegate = handle.delegate();
        List<byte[]> buffers = new ArrayList<>();
        long read = 0;
        try (InputStream raw = delegate.open(); DataInputStream in = new DataInputStream(raw)) {
            while (read < handle.dataBytes()) {
                int n = in.readInt();
                if (n < 0 || read + n > handle.dataBytes()) {
                    throw new IOException("channel state of channel " + handle.channel() + " is corrupt: buffer of " + n + " bytes");
                }
                byte[] b = new byte[n];
                in.readFully(b);
                buffers.add(b);
                read += n;
            }
        } catch (EOFException e) {
            throw new IOException("channel state of channel " + handle.channel() + " is truncated after " + read + " of "
                    + handle.dataBytes() + " bytes", e);
        }
        return buffers;
    }
}
