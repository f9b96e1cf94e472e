package io.weir.api.serialization;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Serializers for the common value types. All are stateless singletons safe to share. */
public final class Serializers {
    private Serializers() {
    }

    /** 8 bytes, big-endian. */
    public static final TypeSerializer<Long> LONG = new TypeSerializer<>() {
        @Override
        public void serialize(Long value, DataOutput out) throws IOException {
            out.writeLong(value);
        }

        @Override
        public Long deserialize(DataInput in) throws IOException {
            return in.readLong();
        }

        /** @return {@code value}: it is immutable */
        @Override
        public Long copy(Long value) {
            return value;
        }
    };

    /** 4 bytes, big-endian. */
    public static final TypeSerializer<Integer> INT = new TypeSerializer<>() {
        @Override
        public void serialize(Integer value, DataOutput out) throws IOException {
            out.writeInt(value);
        }

        @Override
        public Integer deserialize(DataInput in) throws IOException {
            return in.readInt();
        }

        /** @return {@code value}: it is immutable */
        @Override
        public Integer copy(Integer value) {
            return value;
        }
    };

    /** 8 bytes, IEEE 754. */
    public static final TypeSerializer<Double> DOUBLE = new TypeSerializer<>() {
        @Override
        public void serialize(Double value, DataOutput out) throws IOException {
            out.writeDouble(value);
        }

        @Override
        public Double deserialize(DataInput in) throws IOException {
            return in.readDouble();
        }

        /** @return {@code value}: it is immutable */
        @Override
        public Double copy(Double value) {
            return value;
        }
    };

    /** A 4-byte length, then UTF-8 bytes. */
    public static final TypeSerializer<String> STRING = new TypeSerializer<>() {
        @Override
        public void serialize(String value, DataOutput out) throws IOException {
            writeString(value, out);
        }

        @Override
        public String deserialize(DataInput in) throws IOException {
            return readString(in);
        }

        /** @return {@code value}: it is immutable */
        @Override
        public String copy(String value) {
            return value;
        }
    };

    /** A 4-byte length, then the bytes. */
    public static final TypeSerializer<byte[]> BYTES = new TypeSerializer<>() {
        @Override
        public void serialize(byte[] value, DataOutput out) throws IOException {
            out.writeInt(value.length);
            out.write(value);
        }

        @Override
        public byte[] deserialize(DataInput in) throws IOException {
            int n = in.readInt();
            if (n < 0) {
                throw new IOException("negative byte array length " + n);
            }
            byte[] b = new byte[n];
            in.readFully(b);
            return b;
        }
    };

    /**
     * @param element serializer of the elements
     * @return a serializer writing a 4-byte count, then each element
     */
    public static <T> TypeSerializer<List<T>> listOf(TypeSerializer<T> element) {
        return new TypeSerializer<>() {
            @Override
            public void serialize(List<T> value, DataOutput out) throws IOException {
                out.writeInt(value.size());
                for (T t : value) {
                    element.serialize(t, out);
                }
            }

            @Override
            public List<T> deserialize(DataInput in) throws IOException {
                int n = in.readInt();
                if (n < 0) {
                    throw new IOException("negative list length " + n);
                }
                List<T> list = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    list.add(element.deserialize(in));
                }
                return list;
            }
        };
    }

    /** Writes a 4-byte length and the UTF-8 bytes of {@code s}. */
    public static void writeString(String s, DataOutput out) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    /** Reads what {@link #writeString} wrote. @throws IOException on a negative length or a short stream */
    public static String readString(DataInput in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("negative string length " + n);
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
