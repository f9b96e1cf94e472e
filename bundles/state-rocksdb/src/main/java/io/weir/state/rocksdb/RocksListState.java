package io.weir.state.rocksdb;

import io.weir.api.serialization.TypeSerializer;
import io.weir.api.state.ListState;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteOptions;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link ListState} in RocksDB: {@code key group | key} → {@code element count (int) | elements}, the
 * canonical form of a list, so snapshots copy it as is. {@link #add} appends the element's bytes and
 * increments the count without deserializing the list. An empty list is stored as no entry. Task thread only.
 */
final class RocksListState<T> extends AbstractRocksState implements ListState<T> {
    private final TypeSerializer<T> serializer;

    RocksListState(String name, TypeSerializer<T> serializer, ColumnFamilyHandle column, RocksDB db, WriteOptions wo,
            KeyContext ctx, String context) {
        super(name, StateKind.LIST, column, db, wo, ctx, context);
        this.serializer = serializer;
    }

    @Override
    public List<T> get() {
        byte[] bytes = get(ctx.prefix());
        if (bytes == null) {
            return new ArrayList<>();
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int n = in.readInt();
            List<T> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                list.add(serializer.deserialize(in));
            }
            return list;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot deserialize list state '" + name + "' (serializer changed incompatibly?): "
                    + e.getMessage(), e);
        }
    }

    @Override
    public void add(T value) {
        byte[] element = KeyBytes.serialize(serializer, value);
        byte[] bytes = get(ctx.prefix());
        byte[] next;
        if (bytes == null) {
            next = new byte[4 + element.length];
            next[3] = 1;
        } else {
            next = KeyBytes.concat(bytes, element);
            int n = ((bytes[0] & 0xFF) << 24 | (bytes[1] & 0xFF) << 16 | (bytes[2] & 0xFF) << 8 | (bytes[3] & 0xFF)) + 1;
            next[0] = (byte) (n >>> 24);
            next[1] = (byte) (n >>> 16);
            next[2] = (byte) (n >>> 8);
            next[3] = (byte) n;
            put(ctx.prefix(), next);
            return;
        }
        System.arraycopy(element, 0, next, 4, element.length);
        put(ctx.prefix(), next);
    }

    @Override
    public void update(List<T> values) {
        if (values.isEmpty()) {
            clear();
            return;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try {
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(values.size());
            for (T v : values) {
                serializer.serialize(v, out);
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialize list state '" + name + "': " + e.getMessage(), e);
        }
        put(ctx.prefix(), bytes.toByteArray());
    }

    @Override
    public void clear() {
        delete(ctx.prefix());
    }
}
