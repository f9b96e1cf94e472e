package io.weir.state.rocksdb;

import io.weir.api.serialization.Serializers;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.storage.CheckpointStateOutputStream;
import io.weir.core.storage.CheckpointStreamFactory;

import java.io.BufferedOutputStream;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The private part of an incremental RocksDB snapshot: the stream a {@code KeyGroupsStateHandle} with shared
 * files points at (docs/state-rocksdb.md). The SST files are the handle's shared files; this stream holds the
 * rest of the RocksDB checkpoint directory (small: MANIFEST, CURRENT, OPTIONS), which column family holds
 * which state, and (version 2) the delta: rows to write over that checkpoint's DB on restore — the state caches'
 * values a delta snapshot took instead of making a native checkpoint (empty otherwise):
 * <pre>
 * magic int 0x57524B49 ("WRKI") | version int (1 or 2) | checkpoint id long
 * column count int | (state name (int length + UTF-8) | kind byte)*
 * file count int   | (file name (int length + UTF-8) | length int | bytes)*
 * version 2 only:
 * delta state count int | (state name | row count int | (key length int | key | value length int (-1: deleted) | value)*)*
 * </pre>
 * Keys are RocksDB keys ({@code key group (2 bytes) | serialized key}), values the state's serialized values.
 *
 * @param checkpointId the checkpoint the snapshot was taken for
 * @param columns state name → kind, in column family order
 * @param files file name → content of every non-SST file of the RocksDB checkpoint
 * @param delta rows per state to write over the checkpoint's DB, in order; empty for a snapshot with its own native
 *        checkpoint
 */
record IncrementalFormat(long checkpointId, Map<String, StateKind> columns, Map<String, byte[]> files, List<Delta> delta) {
    /** ASCII "WRKI": Weir RocksDB Keyed Incremental. */
    static final int MAGIC = 0x57524B49;
    /** Written; version 1 (no delta) is still read. */
    static final int VERSION = 2;

    /**
     * Rows of one state a delta snapshot carries: {@code keys[i]} → {@code values[i]}, null meaning deleted.
     *
     * @param state the state's name (one of the columns)
     * @param keys RocksDB keys, beginning with their key group (2 bytes, big-endian)
     * @param values serialized values, null for a deleted key; as many as keys
     */
    record Delta(String state, byte[][] keys, byte[][] values) {
        /** @throws IllegalArgumentException if the arrays differ in length or a key is shorter than its key group */
        Delta {
            if (keys.length != values.length) {
                throw new IllegalArgumentException("delta of state '" + state + "': " + keys.length + " keys, "
                        + values.length + " values");
            }
            for (byte[] k : keys) {
                if (k.length < 2) {
                    throw new IllegalArgumentException("delta of state '" + state + "': a key of " + k.length
                            + " bytes has no key group");
                }
            }
        }

        /** @return the key group of row {@code i} */
        int keyGroup(int i) {
            return ((keys[i][0] & 0xFF) << 8) | (keys[i][1] & 0xFF);
        }
    }

    IncrementalFormat {
        columns = new LinkedHashMap<>(columns);
        files = new LinkedHashMap<>(files);
        delta = List.copyOf(delta);
        for (Delta d : delta) {
            if (!columns.containsKey(d.state())) {
                throw new IllegalArgumentException("delta of state '" + d.state() + "', which is not among the columns "
                        + columns.keySet());
            }
        }
    }

    void write(DataOutputStream out) throws IOException {
        writeHead(out, checkpointId, columns, files);
        out.writeInt(delta.size());
        for (Delta d : delta) {
            Serializers.writeString(d.state(), out);
            out.writeInt(d.keys().length);
            for (int i = 0; i < d.keys().length; i++) {
                out.writeInt(d.keys()[i].length);
                out.write(d.keys()[i]);
                byte[] v = d.values()[i];
                out.writeInt(v == null ? -1 : v.length);
                if (v != null) {
                    out.write(v);
                }
            }
        }
    }

    /** What a private stream holds, written by {@link #writeStream}. */
    interface StreamBody {
        void writeTo(DataOutputStream out) throws IOException;
    }

    /**
     * Writes a private stream of checkpoint storage (buffered; the storage stream is closed on failure).
     *
     * @return its handle
     * @throws IOException if the storage or {@code body} fails
     */
    static StreamStateHandle writeStream(CheckpointStreamFactory streams, StreamBody body) throws IOException {
        CheckpointStateOutputStream out = streams.createOutputStream();
        try {
            DataOutputStream data = new DataOutputStream(new BufferedOutputStream(out, 64 << 10));
            body.writeTo(data);
            data.flush();
            return out.closeAndGetHandle();
        } catch (IOException | RuntimeException e) {
            out.close();
            throw e;
        }
    }

    /**
     * Writes everything before the delta section: what {@link #write} writes before its delta state count. A writer
     * that encodes the delta itself follows it with the state count and the states' rows.
     */
    static void writeHead(DataOutputStream out, long checkpointId, Map<String, StateKind> columns, Map<String, byte[]> files)
            throws IOException {
        out.writeInt(MAGIC);
        out.writeInt(VERSION);
        out.writeLong(checkpointId);
        out.writeInt(columns.size());
        for (Map.Entry<String, StateKind> c : columns.entrySet()) {
            Serializers.writeString(c.getKey(), out);
            out.writeByte(c.getValue().code);
        }
        out.writeInt(files.size());
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
            Serializers.writeString(f.getKey(), out);
            out.writeInt(f.getValue().length);
            out.write(f.getValue());
        }
    }

    /** @throws IOException if the stream is not this format, of an unknown version, or malformed */
    static IncrementalFormat read(DataInputStream in) throws IOException {
        int magic = in.readInt();
        if (magic != MAGIC) {
            throw new IOException(String.format("not an incremental RocksDB snapshot (magic 0x%08X)", magic));
        }
        int version = in.readInt();
        if (version != 1 && version != VERSION) {
            throw new IOException("unsupported incremental RocksDB snapshot version " + version + " (this Weir reads 1 to "
                    + VERSION + ")");
        }
        long checkpointId = in.readLong();
        int columnCount = in.readInt();
        Map<String, StateKind> columns = new LinkedHashMap<>();
        for (int i = 0; i < columnCount; i++) {
            columns.put(Serializers.readString(in), StateKind.ofCode(in.readByte()));
        }
        int fileCount = in.readInt();
        Map<String, byte[]> files = new LinkedHashMap<>();
        for (int i = 0; i < fileCount; i++) {
            String name = Serializers.readString(in);
            int length = in.readInt();
            if (length < 0 || name.contains("/") || name.contains("..")) {
                throw new IOException("bad file entry '" + name + "' (" + length + " bytes)");
            }
            byte[] bytes = new byte[length];
            in.readFully(bytes);
            files.put(name, bytes);
        }
        List<Delta> delta = new ArrayList<>();
        int deltaStates = version == 1 ? 0 : in.readInt();
        for (int s = 0; s < deltaStates; s++) {
            String state = Serializers.readString(in);
            int rows = in.readInt();
            if (rows < 0) {
                throw new IOException("bad delta of state '" + state + "': " + rows + " rows");
            }
            byte[][] keys = new byte[rows][];
            byte[][] values = new byte[rows][];
            for (int i = 0; i < rows; i++) {
                keys[i] = readBytes(in, in.readInt(), state);
                int length = in.readInt();
                values[i] = length == -1 ? null : readBytes(in, length, state);
            }
            delta.add(new Delta(state, keys, values));
        }
        try {
            return new IncrementalFormat(checkpointId, columns, files, delta);
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    private static byte[] readBytes(DataInputStream in, int length, String state) throws IOException {
        if (length < 0) {
            throw new IOException("bad delta row of state '" + state + "': length " + length);
        }
        byte[] b = new byte[length];
        in.readFully(b);
        return b;
    }

    /** @return the state names, in column family order */
    List<String> stateNames() {
        return new ArrayList<>(columns.keySet());
    }
}
