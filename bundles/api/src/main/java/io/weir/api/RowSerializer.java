package io.weir.api;

import io.weir.api.serialization.Serializers;
import io.weir.api.serialization.TypeSerializer;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.EOFException;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

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
    /** Big-endian 8- and 4-byte stores into a byte array, the byte order of {@link DataOutput#writeLong}. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
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

    /**
     * Writes the binary form of {@code row}: encoded by {@link #serializeInto} into an array of the row's largest
     * possible size, then written to {@code out} in one call.
     *
     * @throws IllegalArgumentException if the row may need more than {@value #MAX_ROW_BYTES} bytes
     * @throws ClassCastException if a value is not of its field type's Java class
     */
    @Override
    public void serialize(Row row, DataOutput out) throws IOException {
        byte[] bytes = new byte[maxSerializedSize(row)];
        out.write(bytes, 0, serializeInto(row, bytes, 0, bytes.length));
    }

    /** Largest array {@link #serialize} allocates for one row, bytes (a JVM's array limit, rounded down). */
    private static final int MAX_ROW_BYTES = Integer.MAX_VALUE - 16;

    /**
     * @return an upper bound of the bytes {@code row} serializes to: exact except for strings, counted as 3 bytes per
     *         {@code char} (UTF-8's most for one UTF-16 unit)
     */
    private int maxSerializedSize(Row row) {
        int n = types.length;
        long size = (n + 7) / 8;
        for (int i = 0; i < n; i++) {
            if (!row.isNull(i)) {
                size += switch (types[i]) {
                    case LONG, TIMESTAMP, DOUBLE -> 8;
                    case INT -> 4;
                    case BOOLEAN -> 1;
                    case STRING -> 4 + 3L * ((String) row.get(i)).length();
                    case BYTES -> 4 + ((byte[]) row.get(i)).length;
                };
            }
        }
        if (size > MAX_ROW_BYTES) {
            throw new IllegalArgumentException("row of schema " + schema + " may serialize to " + size
                    + " bytes, more than the " + MAX_ROW_BYTES + " a row may have; store large values outside the row");
        }
        return (int) size;
    }

    /**
     * Writes the binary form of {@code row} (the same bytes as {@link #serialize}) straight into
     * {@code target[offset, limit)}, with whole 8- and 4-byte stores instead of one {@link DataOutput} call per
     * byte group: the record path serializes each row this way into the network buffer it goes to.
     *
     * @param row a row of this serializer's schema
     * @param target the array to write into
     * @param offset where the row's first byte goes, {@code 0 <= offset <= limit}
     * @param limit the first position that must not be written, {@code <= target.length}
     * @return the position after the row's last byte, or {@code -1} if the row does not fit before {@code limit}
     *         (then bytes in {@code [offset, limit)} may have been overwritten; nothing at or after {@code limit} was)
     * @throws ClassCastException if a value is not of its field type's Java class
     * @throws ArrayIndexOutOfBoundsException if the row has fewer fields than the schema
     */
    public int serializeInto(Row row, byte[] target, int offset, int limit) {
        int n = types.length;
        int bitmap = offset;
        int pos = offset + (n + 7) / 8;
        if (pos > limit) {
            return -1;
        }
        for (int i = bitmap; i < pos; i++) {
            target[i] = 0;
        }
        for (int i = 0; i < n; i++) {
            if (row.isNull(i)) {
                target[bitmap + (i >> 3)] |= (byte) (1 << (i & 7));
                continue;
            }
            if (types[i] == FieldType.LONG || types[i] == FieldType.TIMESTAMP) {
                // read without boxing: a reusable row may hold the long unboxed
                if (pos + 8 > limit) {
                    return -1;
                }
                LONGS.set(target, pos, row.getLong(i));
                pos += 8;
                continue;
            }
            Object v = row.get(i);
            switch (types[i]) {
                case INT -> {
                    if (pos + 4 > limit) {
                        return -1;
                    }
                    INTS.set(target, pos, (int) (Integer) v);
                    pos += 4;
                }
                case DOUBLE -> {
                    if (pos + 8 > limit) {
                        return -1;
                    }
                    LONGS.set(target, pos, Double.doubleToLongBits((Double) v));
                    pos += 8;
                }
                case BOOLEAN -> {
                    if (pos + 1 > limit) {
                        return -1;
                    }
                    target[pos++] = (byte) ((Boolean) v ? 1 : 0);
                }
                case STRING -> pos = putBytes(((String) v).getBytes(StandardCharsets.UTF_8), target, pos, limit);
                case BYTES -> pos = putBytes((byte[]) v, target, pos, limit);
                default -> throw new IllegalStateException("unhandled type " + types[i]);
            }
            if (pos < 0) {
                return -1;
            }
        }
        return pos;
    }

    /** A 4-byte length, then {@code bytes}, at {@code pos}. @return the position after them, or -1 past limit */
    private static int putBytes(byte[] bytes, byte[] target, int pos, int limit) {
        if (pos + 4 + bytes.length > limit || pos + 4 + bytes.length < 0) {
            return -1;
        }
        INTS.set(target, pos, bytes.length);
        System.arraycopy(bytes, 0, target, pos + 4, bytes.length);
        return pos + 4 + bytes.length;
    }

    /** @return {@code row} itself: rows are immutable (see {@link Row}) */
    @Override
    public Row copy(Row row) {
        return row;
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

    /**
     * Reads one row from {@code bytes[offset, offset + length)}, the bytes {@link #serializeInto} or {@link #serialize}
     * wrote: the same row as {@link #deserialize(DataInput)} over those bytes (with the same fields left {@code null}
     * by {@link #decodingOnly}), read with whole 8- and 4-byte loads and without a {@link DataInput} call per field.
     * The record path decodes each row of a network buffer this way. Bytes after the row's last field are ignored.
     *
     * @param bytes the array holding the row
     * @param offset the row's first byte, {@code >= 0}
     * @param length the row's bytes, {@code >= 0}, with {@code offset + length <= bytes.length}
     * @return a new row of this serializer's schema
     * @throws EOFException if a field reaches past {@code offset + length}
     * @throws IOException if a string or byte array has a negative length
     * @throws IndexOutOfBoundsException if {@code [offset, offset + length)} is not inside {@code bytes}
     */
    public Row deserialize(byte[] bytes, int offset, int length) throws IOException {
        Object[] values = new Object[types.length];
        decode(bytes, offset, length, values, null);
        return new Row(schema, values);
    }

    /**
     * Reads one row as {@link #deserialize(byte[], int, int)} does, but into {@code target}'s row instead of a new
     * one: every value of that row is overwritten (fields that are null, or not decoded by a {@link #decodingOnly}
     * serializer, become {@code null}) and its cached hash dropped. For a record path whose receiver keeps no input
     * row ({@link io.weir.api.operator.StreamOperator#retainsInputRows()} false), it saves a row and a values array
     * per record, and a {@code Long} per LONG or TIMESTAMP field: those are held unboxed ({@link Row.Reusable#setLong}).
     * If an exception is thrown, the target's values are undefined.
     *
     * @param bytes the array holding the row
     * @param offset the row's first byte, {@code >= 0}
     * @param length the row's bytes, {@code >= 0}, with {@code offset + length <= bytes.length}
     * @param target a reusable row of this serializer's schema (same number of fields)
     * @return {@code target.row()}
     * @throws IllegalArgumentException if the target's row has another number of fields than this schema
     * @throws EOFException if a field reaches past {@code offset + length}
     * @throws IOException if a string or byte array has a negative length
     * @throws IndexOutOfBoundsException if {@code [offset, offset + length)} is not inside {@code bytes}
     */
    public Row deserializeInto(byte[] bytes, int offset, int length, Row.Reusable target) throws IOException {
        if (target.row().arity() != types.length) {
            throw new IllegalArgumentException("reusable row of schema " + target.row().schema() + " has "
                    + target.row().arity() + " fields, but this serializer reads rows of " + schema);
        }
        decode(bytes, offset, length, target.valuesToOverwrite(), target.longsToOverwrite());
        return target.row();
    }

    /**
     * Decodes the row at {@code bytes[offset, offset + length)} into {@code values}, every slot written; with
     * {@code longs} (a reusable row's), LONG and TIMESTAMP values go there unboxed, marked {@link Row#UNBOXED}.
     */
    private void decode(byte[] bytes, int offset, int length, Object[] values, long[] longs) throws IOException {
        java.util.Objects.checkFromIndexSize(offset, length, bytes.length);
        int n = types.length;
        int end = offset + length;
        int pos = offset + (n + 7) / 8;
        if (pos > end) {
            throw new EOFException("row of schema " + schema + " has " + length + " bytes, fewer than its "
                    + (n + 7) / 8 + "-byte null bitmap");
        }
        for (int i = 0; i < n; i++) {
            if ((bytes[offset + (i >> 3)] & (1 << (i & 7))) != 0) {
                values[i] = null;
                continue;
            }
            boolean build = decoded == null || decoded[i];
            if (!build) {
                values[i] = null;
            }
            switch (types[i]) {
                case LONG, TIMESTAMP -> {
                    checkField(i, pos, 8, end);
                    if (build && longs != null) {
                        longs[i] = (long) LONGS.get(bytes, pos);
                        values[i] = Row.UNBOXED;
                    } else if (build) {
                        values[i] = (long) LONGS.get(bytes, pos);
                    }
                    pos += 8;
                }
                case INT -> {
                    checkField(i, pos, 4, end);
                    if (build) {
                        values[i] = (int) INTS.get(bytes, pos);
                    }
                    pos += 4;
                }
                case DOUBLE -> {
                    checkField(i, pos, 8, end);
                    if (build) {
                        values[i] = Double.longBitsToDouble((long) LONGS.get(bytes, pos));
                    }
                    pos += 8;
                }
                case BOOLEAN -> {
                    checkField(i, pos, 1, end);
                    if (build) {
                        values[i] = bytes[pos] != 0;
                    }
                    pos += 1;
                }
                case STRING, BYTES -> {
                    checkField(i, pos, 4, end);
                    int len = (int) INTS.get(bytes, pos);
                    if (len < 0) {
                        throw new IOException("negative " + (types[i] == FieldType.STRING ? "string" : "byte array")
                                + " length " + len + " in field " + i + " of schema " + schema);
                    }
                    pos += 4;
                    checkField(i, pos, len, end);
                    if (build) {
                        values[i] = types[i] == FieldType.STRING
                                ? new String(bytes, pos, len, StandardCharsets.UTF_8)
                                : java.util.Arrays.copyOfRange(bytes, pos, pos + len);
                    }
                    pos += len;
                }
                default -> throw new IllegalStateException("unhandled type " + types[i]);
            }
        }
    }

    /** @throws EOFException if field {@code field}'s {@code size} bytes at {@code pos} reach past {@code end} */
    private void checkField(int field, int pos, int size, int end) throws EOFException {
        if (size > end - pos) {
            throw new EOFException("row ends inside field " + field + " (" + types[field] + ") of schema " + schema
                    + ": it needs " + size + " bytes at " + pos + " but the row ends at " + end);
        }
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
