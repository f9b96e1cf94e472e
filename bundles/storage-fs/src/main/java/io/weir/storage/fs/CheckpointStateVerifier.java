package io.weir.storage.fs;

import io.weir.core.checkpoint.ChannelStateHandle;
import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.OperatorState;
import io.weir.core.checkpoint.OperatorStateHandle;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.checkpoint.StreamStateHandle.ByteStreamStateHandle;
import io.weir.core.checkpoint.StreamStateHandle.FileStateHandle;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.zip.CRC32;

/**
 * Checks that every state stream a checkpoint's metadata refers to is still what was written: a state
 * file exists and has the recorded size, and every stream with a recorded CRC32 (format version 4 on)
 * has bytes with that CRC32. Run before a checkpoint is restored, so no task starts on damaged state
 * (a flipped byte in a keyed state file otherwise restores as a wrong value, silently).
 *
 * <p>Cost: reads every state file of the checkpoint once, sequentially (CRC32 runs at several GB/s,
 * so the time is the disk's read time for the checkpoint's state size). Streams of older formats,
 * which have no checksum, are checked for existence and size only, which reads nothing.
 *
 * <p>Stateless and thread-safe.
 */
public final class CheckpointStateVerifier {
    private static final int READ_BUFFER_BYTES = 64 * 1024;

    /**
     * What a verification looked at, for the log.
     *
     * @param streams state streams checked (files and inline)
     * @param files of which state files
     * @param bytesRead bytes read to compute CRC32s
     * @param withoutChecksum streams with no recorded CRC32 (written before format version 4): presence and size checked only
     */
    public record Summary(int streams, int files, long bytesRead, int withoutChecksum) {
    }

    /**
     * @param metadata the checkpoint's metadata
     * @param metadataFile the {@code _metadata} file, named in errors about inline state
     * @return how many streams and bytes were checked
     * @throws IOException naming the state file (or, for inline state, the metadata file), the operator
     *         and subtask it belongs to and what is wrong: missing, unreadable, of another size than
     *         recorded, or a CRC32 mismatch; the first problem found is reported
     */
    public Summary verify(CheckpointMetadata metadata, String metadataFile) throws IOException {
        Counter counter = new Counter();
        for (OperatorState op : new TreeMap<>(metadata.operatorStates()).values()) {
            for (Map.Entry<Integer, OperatorSubtaskState> e : new TreeMap<>(op.subtaskStates()).entrySet()) {
                String owner = "operator " + op.operatorId() + " subtask " + e.getKey();
                OperatorSubtaskState s = e.getValue();
                for (OperatorStateHandle h : s.operatorState()) {
                    verify(h.delegate(), owner + ", operator state", metadataFile, counter);
                }
                for (KeyGroupsStateHandle h : s.keyedState()) {
                    verify(h.delegate(), owner + ", keyed state of key groups " + h.range().start() + "-" + h.range().end(), metadataFile, counter);
                    for (io.weir.core.checkpoint.SharedFileHandle f : h.sharedFiles()) {
                        verify(f.handle(), owner + ", shared file " + f.name() + " (of checkpoint " + f.uploadedBy()
                                + ") of key groups " + h.range().start() + "-" + h.range().end(), metadataFile, counter);
                    }
                }
                for (ChannelStateHandle h : s.inputChannelState()) {
                    verify(h.delegate(), owner + ", in-flight data of input channel " + h.channel(), metadataFile, counter);
                }
                for (ChannelStateHandle h : s.resultSubpartitionState()) {
                    verify(h.delegate(), owner + ", in-flight data of output subpartition " + h.channel(), metadataFile, counter);
                }
            }
        }
        return new Summary(counter.streams, counter.files, counter.bytesRead, counter.withoutChecksum);
    }

    /** Mutable tallies of one {@link #verify(CheckpointMetadata, String)} call; confined to its thread. */
    private static final class Counter {
        int streams;
        int files;
        long bytesRead;
        int withoutChecksum;
    }

    private static void verify(StreamStateHandle handle, String owner, String metadataFile, Counter counter) throws IOException {
        counter.streams++;
        OptionalInt expected = handle.crc32();
        if (expected.isEmpty()) {
            counter.withoutChecksum++;
        }
        if (handle instanceof ByteStreamStateHandle inline) {
            if (expected.isPresent()) {
                CRC32 crc = new CRC32();
                crc.update(inline.data());
                if ((int) crc.getValue() != expected.getAsInt()) {
                    throw new IOException("inline state (" + owner + ", " + inline.data().length + " bytes) in checkpoint metadata file "
                            + metadataFile + " is corrupt: " + mismatch(expected.getAsInt(), (int) crc.getValue()));
                }
            }
            return;
        }
        FileStateHandle file = (FileStateHandle) handle;
        counter.files++;
        Path path = Path.of(file.path());
        long size;
        try {
            size = Files.size(path);
        } catch (NoSuchFileException e) {
            throw new IOException("checkpoint state file " + path + " (" + owner + ") is missing", e);
        } catch (IOException e) {
            throw new IOException("checkpoint state file " + path + " (" + owner + ") cannot be read: " + e, e);
        }
        if (size != file.size()) {
            throw new IOException("checkpoint state file " + path + " (" + owner + ") " + (size < file.size() ? "is truncated: " : "has changed: ")
                    + size + " bytes, the checkpoint recorded " + file.size());
        }
        if (expected.isEmpty()) {
            return;
        }
        CRC32 crc = new CRC32();
        byte[] buffer = new byte[READ_BUFFER_BYTES];
        long read = 0;
        try (InputStream in = Files.newInputStream(path)) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                crc.update(buffer, 0, n);
                read += n;
            }
        } catch (IOException e) {
            throw new IOException("checkpoint state file " + path + " (" + owner + ") cannot be read: " + e, e);
        }
        counter.bytesRead += read;
        if (read != file.size()) {
            throw new IOException("checkpoint state file " + path + " (" + owner + ") changed while it was verified: read "
                    + read + " bytes, the checkpoint recorded " + file.size());
        }
        if ((int) crc.getValue() != expected.getAsInt()) {
            throw new IOException("checkpoint state file " + path + " (" + owner + ") is corrupt: "
                    + mismatch(expected.getAsInt(), (int) crc.getValue()));
        }
    }

    private static String mismatch(int recorded, int computed) {
        return String.format("CRC32 mismatch (recorded 0x%08X, computed 0x%08X)", recorded, computed);
    }
}
