package io.weir.state.rocksdb;

import io.weir.api.serialization.Serializers;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.state.KeyGroupRange;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the key groups of one range out of {@link CanonicalFormat} streams (written by this backend or by
 * the heap backend), seeking with the handles' offsets so key groups outside the range are skipped, not
 * parsed: this is how a restore with another parallelism picks its part. Task thread (runs while the
 * backend is constructed).
 */
final class CanonicalSnapshotReader {
    private final KeyGroupRange range;
    private final String context;

    /**
     * @param range the key groups to read
     * @param context job, operator and subtask, for errors
     */
    CanonicalSnapshotReader(KeyGroupRange range, String context) {
        this.range = range;
        this.context = context;
    }

    /**
     * @return state name → its serialized entries in the range, in order of first appearance
     * @throws IOException naming the stream and the subtask if a stream is missing, truncated or malformed,
     *         or if two handles hold the same key group
     */
    Map<String, RestoredState> read(List<KeyGroupsStateHandle> handles) throws IOException {
        Map<String, RestoredState> states = new LinkedHashMap<>();
        boolean[] seen = new boolean[range.size()];
        for (KeyGroupsStateHandle handle : handles) {
            int first = Math.max(range.start(), handle.range().start());
            int last = Math.min(range.end(), handle.range().end());
            if (first > last) {
                continue;
            }
            String source = handle.delegate() instanceof StreamStateHandle.FileStateHandle f ? f.path()
                    : "inline state (" + handle.delegate().size() + " bytes)";
            try (Counting counting = new Counting(handle.delegate().open()); DataInputStream in = new DataInputStream(counting)) {
                int magic = in.readInt();
                int version = in.readInt();
                if (magic != CanonicalFormat.MAGIC) {
                    throw new IOException(String.format("not a keyed state snapshot (magic 0x%08X)", magic));
                }
                if (version < 1 || version > CanonicalFormat.VERSION) {
                    throw new IOException("unsupported keyed state format version " + version + " (this Weir reads up to "
                            + CanonicalFormat.VERSION + ")");
                }
                for (int kg = first; kg <= last; kg++) {
                    int index = kg - range.start();
                    if (seen[index]) {
                        throw new IOException("key group " + kg + " is in more than one restore handle");
                    }
                    seen[index] = true;
                    long offset = handle.offsetOf(kg);
                    if (offset < counting.position) {
                        throw new IOException("offset " + offset + " of key group " + kg + " lies before the current position "
                                + counting.position);
                    }
                    in.skipNBytes(offset - counting.position);
                    readKeyGroup(in, kg, index, states);
                }
            } catch (EOFException e) {
                throw new IOException("cannot restore keyed state of " + context + " from " + source
                        + ": the stream ends early (truncated)", e);
            } catch (IOException | RuntimeException e) {
                throw new IOException("cannot restore keyed state of " + context + " from " + source + ": " + e.getMessage(), e);
            }
        }
        return states;
    }

    private void readKeyGroup(DataInputStream in, int kg, int index, Map<String, RestoredState> states) throws IOException {
        int stored = in.readInt();
        if (stored != kg) {
            throw new IOException("offset of key group " + kg + " points at key group " + stored);
        }
        int stateCount = in.readInt();
        for (int s = 0; s < stateCount; s++) {
            String name = Serializers.readString(in);
            StateKind kind = StateKind.ofCode(in.readByte());
            int entryCount = in.readInt();
            int length = in.readInt();
            if (entryCount < 0 || length < 0) {
                throw new IOException("negative entry count or length in state '" + name + "' of key group " + kg);
            }
            byte[] bytes = new byte[length];
            in.readFully(bytes);
            RestoredState state = states.computeIfAbsent(name, n -> new RestoredState(n, kind, range.size()));
            if (state.kind != kind) {
                throw new IOException("state '" + name + "' is " + kind + " in key group " + kg + " but " + state.kind + " elsewhere");
            }
            if (state.entries[index] != null) {
                throw new IOException("state '" + name + "' appears twice in key group " + kg);
            }
            state.entryCounts[index] = entryCount;
            state.entries[index] = bytes;
        }
    }

    /** Counts bytes read and skipped, so offsets can be reached by skipping forward. Single thread. */
    private static final class Counting extends FilterInputStream {
        long position;

        Counting(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                position++;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                position += n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(n);
            position += skipped;
            return skipped;
        }
    }
}
