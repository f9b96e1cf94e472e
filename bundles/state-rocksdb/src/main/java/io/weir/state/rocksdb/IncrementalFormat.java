package io.weir.state.rocksdb;

import io.weir.api.serialization.Serializers;

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
 * rest of the RocksDB checkpoint directory (small: MANIFEST, CURRENT, OPTIONS) and which column family holds
 * which state:
 * <pre>
 * magic int 0x57524B49 ("WRKI") | version int (1) | checkpoint id long
 * column count int | (state name (int length + UTF-8) | kind byte)*
 * file count int   | (file name (int length + UTF-8) | length int | bytes)*
 * </pre>
 *
 * @param checkpointId the checkpoint the snapshot was taken for
 * @param columns state name → kind, in column family order
 * @param files file name → content of every non-SST file of the RocksDB checkpoint
 */
record IncrementalFormat(long checkpointId, Map<String, StateKind> columns, Map<String, byte[]> files) {
    /** ASCII "WRKI": Weir RocksDB Keyed Incremental. */
    static final int MAGIC = 0x57524B49;
    static final int VERSION = 1;

    IncrementalFormat {
        columns = new LinkedHashMap<>(columns);
        files = new LinkedHashMap<>(files);
    }

    void write(DataOutputStream out) throws IOException {
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
        if (version != VERSION) {
            throw new IOException("unsupported incremental RocksDB snapshot version " + version + " (this Weir reads "
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
        return new IncrementalFormat(checkpointId, columns, files);
    }

    /** @return the state names, in column family order */
    List<String> stateNames() {
        return new ArrayList<>(columns.keySet());
    }
}
