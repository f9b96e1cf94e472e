package io.weir.api;

import io.weir.api.serialization.Serializers;
import io.weir.api.serialization.TypeSerializer;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.EOFException;
import java.io.IOException;

/**
 * The binary form of a {@link Row} of a fixed {@link Schema}: a null bitmap of
 * {@code ceil(fields / 8)} bytes, then each non-null field in its {@link FieldType} encoding.
 * The schema itself is not written; both sides of an edge know it from the job graph.
 *
 * <p>A serializer made by {@link #decodingOnly} reads every field's bytes but builds the values of the named fields
 * only; the others are {@code null} in the rows it returns (a consumer that reads one key of a wide row does not pay
 * for the rest).
 *
 * <p>Stateless and thread-safe.
 */
public final class RowSerializer implements TypeSerializer<Row> {
    private final Schema schema;
    private final FieldType[] types;
    /** Per field: whether {@link #deserialize} builds its value (else skips its bytes); null = every field. */
    private final boolean[] decoded;

    /** @param schema the schema of every row this serializer handles */
    public RowSerializer(Schema schema) {
        this(schema, null);
    }

    private RowSerializer(Schema schema, boolean[] decoded) {
        this.schema = schema;
        this.types = new FieldType[schema.size()];
        for (int i = 0; i < types.length; i++) {
            types[i] = schema.field(i).type();
        }
        this.decoded = decoded;
    }

    /**
     * @param positions the field positions whose values {@link #deserialize} should build, in any order, repeats
     *        allowed
     * @return a serializer of the same schema and binary form whose rows hold {@code null} in every other field;
     *         {@link #serialize} is unchanged
     * @throws IllegalArgumentException if a position is outside {@code [0, fields)}
     */
    public RowSerializer decodingOnly(int[] positions) {
        boolean[] keep = new boolean[types.length];
        for (int p : positions) {
            if (p < 0 || p >= types.length) {
                throw new IllegalArgumentException("field position " + p + " is outside schema " + schema + " (0.."
                        + (types.length - 1) + "); pass positions of that schema's fields");
            }
            keep[p] = true;
        }
        return new RowSerializer(schema, keep);
    }

    /** @return the schema */
    public Schema schema() {
        return schema;
    }

    @Override
    public void serialize(Row row, DataOutput out) throws IOException {
        int n = types.length;
        for (int b = 0; b < n; b += 8) {
            int bits = 0;
            for (int i = b; i < Math.min(n, b + 8); i++) {
                if (row.get(i) == null) {
                    bits |= 1 << (i - b);
                }
            }
            out.writeByte(bits);
        }
        for (int i = 0; i < n; i++) {
            Object v = row.get(i);
            if (v == null) {
                continue;
            }
            switch (types[i]) {
                case LONG, TIMESTAMP -> out.writeLong((Long) v);
                case INT -> out.writeInt((Integer) v);
                case DOUBLE -> out.writeDouble((Double) v);
                case BOOLEAN -> out.writeBoolean((Boolean) v);
                case STRING -> Serializers.writeString((String) v, out);
                case BYTES -> {
                    byte[] bytes = (byte[]) v;
                    out.writeInt(bytes.length);
                    out.write(bytes);
                }
                default -> throw new IllegalStateException("unhandled type " + types[i]);
            }
        }
    }

    @Override
    public Row deserialize(DataInput in) throws IOException {
        int n = types.length;
        Object[] values = new Object[n];
        // the null bitmap: in one long for up to 64 fields (no array per row), else in an array
        long nulls = 0;
        byte[] wideNulls = null;
        if (n <= 64) {
            for (int b = 0; b < n; b += 8) {
                nulls |= (long) in.readUnsignedByte() << b;
            }
        } else {
            wideNulls = new byte[(n + 7) / 8];
            in.readFully(wideNulls);
        }
        for (int i = 0; i < n; i++) {
            if (wideNulls == null ? (nulls & (1L << i)) != 0 : (wideNulls[i >> 3] & (1 << (i & 7))) != 0) {
                continue;
            }
            if (decoded != null && !decoded[i]) {
                skip(types[i], in);
                continue;
            }
            values[i] = switch (types[i]) {
                case LONG, TIMESTAMP -> in.readLong();
                case INT -> in.readInt();
                case DOUBLE -> in.readDouble();
                case BOOLEAN -> in.readBoolean();
                case STRING -> Serializers.readString(in);
                case BYTES -> Serializers.BYTES.deserialize(in);
            };
        }
        return new Row(schema, values);
    }

    /** Reads past one non-null value of {@code type}. @throws EOFException if the input ends inside it */
    private static void skip(FieldType type, DataInput in) throws IOException {
        int n = switch (type) {
            case LONG, TIMESTAMP, DOUBLE -> 8;
            case INT -> 4;
            case BOOLEAN -> 1;
            case STRING, BYTES -> {
                int len = in.readInt();
                if (len < 0) {
                    throw new IOException("negative " + type + " length " + len);
                }
                yield len;
            }
        };
        if (in.skipBytes(n) != n) {
            throw new EOFException("row ends inside a " + type + " field of " + n + " bytes");
        }
    }
}
