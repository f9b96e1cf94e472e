package io.weir.state.rocksdb;

import io.weir.api.Row;
import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.StateDescriptor;
import io.weir.core.state.KeyGroupRange;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * Loads a restored state's canonical entries into its column family once the operator registered it: the
 * descriptor's serializers find where each key, user key and value ends, and the bytes are written as they
 * are (no value is deserialized into an object and serialized again). Writes in batches of about 4 MB.
 * Task thread only.
 */
final class RestoredStateLoader {
    private static final int BATCH_BYTES = 4 << 20;

    private final RocksDB db;
    private final WriteOptions writeOptions;
    private final TypeSerializer<Row> keySerializer;
    private final KeyGroupRange range;
    private final String context;

    RestoredStateLoader(RocksDB db, WriteOptions writeOptions, TypeSerializer<Row> keySerializer, KeyGroupRange range,
            String context) {
        this.db = db;
        this.writeOptions = writeOptions;
        this.keySerializer = keySerializer;
        this.range = range;
        this.context = context;
    }

    /**
     * @param descriptor the state's descriptor; null for {@link StateKind#TIMERS}
     * @throws UncheckedIOException naming the state, key group and subtask if the entries do not match the
     *         descriptor's serializers
     * @throws IllegalStateException if RocksDB fails to write
     */
    void load(AbstractRocksState state, StateDescriptor<?> descriptor, RestoredState from) {
        TypeSerializer<?> valueSerializer;
        TypeSerializer<?> userKeySerializer = null;
        if (descriptor == null) {
            valueSerializer = null; // timers: timestamps, no serializer
        } else if (descriptor instanceof StateDescriptor.Value<?> v) {
            valueSerializer = v.serializer();
        } else if (descriptor instanceof StateDescriptor.List<?> l) {
            valueSerializer = l.serializer();
        } else if (descriptor instanceof StateDescriptor.Map<?, ?> m) {
            valueSerializer = m.valueSerializer();
            userKeySerializer = m.keySerializer();
        } else {
            valueSerializer = ((StateDescriptor.Reducing<?>) descriptor).serializer();
        }
        try (WriteBatch batch = new WriteBatch()) {
            for (int i = 0; i < from.entries.length; i++) {
                byte[] bytes = from.entries[i];
                if (bytes == null) {
                    continue;
                }
                int kg = range.start() + i;
                try {
                    loadKeyGroup(state, kg, bytes, from.entryCounts[i], valueSerializer, userKeySerializer, batch);
                } catch (IOException | RuntimeException e) {
                    throw new UncheckedIOException(new IOException("cannot deserialize restored state '" + state.name
                            + "' in key group " + kg + " of " + context + " (serializer changed incompatibly?): "
                            + e.getMessage(), e));
                }
                if (batch.getDataSize() > BATCH_BYTES) {
                    db.write(writeOptions, batch);
                    batch.clear();
                }
            }
            db.write(writeOptions, batch);
        } catch (RocksDBException e) {
            throw state.failure("restore", e);
        }
    }

    private void loadKeyGroup(AbstractRocksState state, int kg, byte[] bytes, int entries, TypeSerializer<?> valueSerializer,
            TypeSerializer<?> userKeySerializer, WriteBatch batch) throws IOException, RocksDBException {
        Cursor in = new Cursor(bytes);
        DataInputStream data = new DataInputStream(in);
        byte[] group = KeyBytes.keyGroupPrefix(kg);
        for (int e = 0; e < entries; e++) {
            int keyStart = in.position();
            keySerializer.deserialize(data);
            byte[] prefix = KeyBytes.concat(group, Arrays.copyOfRange(bytes, keyStart, in.position()));
            int valueStart = in.position();
            switch (state.kind) {
                case TIMERS -> {
                    int n = data.readInt();
                    for (int k = 0; k < n; k++) {
                        batch.put(state.column, RocksTimerQueue.row(prefix, 0, prefix.length, data.readLong()),
                                RocksTimerQueue.EMPTY);
                    }
                }
                case VALUE, REDUCING -> {
                    valueSerializer.deserialize(data);
                    batch.put(state.column, prefix, Arrays.copyOfRange(bytes, valueStart, in.position()));
                }
                case LIST -> {
                    int n = data.readInt();
                    for (int k = 0; k < n; k++) {
                        valueSerializer.deserialize(data);
                    }
                    if (n > 0) {
                        batch.put(state.column, prefix, Arrays.copyOfRange(bytes, valueStart, in.position()));
                    }
                }
                case MAP -> {
                    int n = data.readInt();
                    for (int k = 0; k < n; k++) {
                        int userKeyStart = in.position();
                        userKeySerializer.deserialize(data);
                        int userKeyEnd = in.position();
                        valueSerializer.deserialize(data);
                        batch.put(state.column, KeyBytes.concat(prefix, Arrays.copyOfRange(bytes, userKeyStart, userKeyEnd)),
                                Arrays.copyOfRange(bytes, userKeyEnd, in.position()));
                    }
                }
            }
        }
        if (in.position() != bytes.length) {
            throw new IOException((bytes.length - in.position()) + " bytes left after " + entries + " entries");
        }
    }

    /** A byte-array stream that tells its position. */
    private static final class Cursor extends ByteArrayInputStream {
        Cursor(byte[] bytes) {
            super(bytes);
        }

        int position() {
            return pos;
        }
    }
}
