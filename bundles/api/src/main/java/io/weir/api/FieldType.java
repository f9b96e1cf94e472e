package io.weir.api;

/**
 * The value types a {@link Row} field can hold, with the Java class that carries each value.
 *
 * <p>A row's binary form (see {@link RowSerializer}) writes fields in these fixed encodings:
 * {@code LONG} and {@code TIMESTAMP} 8 bytes (timestamp: ms since the epoch), {@code INT} 4 bytes,
 * {@code DOUBLE} 8 bytes (IEEE 754), {@code BOOLEAN} 1 byte, {@code STRING} a length then UTF-8
 * bytes, {@code BYTES} a length then the bytes.
 */
public enum FieldType {
    LONG(Long.class),
    INT(Integer.class),
    DOUBLE(Double.class),
    BOOLEAN(Boolean.class),
    STRING(String.class),
    BYTES(byte[].class),
    TIMESTAMP(Long.class);

    private final Class<?> javaClass;

    FieldType(Class<?> javaClass) {
        this.javaClass = javaClass;
    }

    /** @return the Java class of a non-null value of this type */
    public Class<?> javaClass() {
        return javaClass;
    }

    /**
     * Parses a type name as written in job files ({@code "long"}, {@code "string"}, ...).
     *
     * @param name the name, case-insensitive
     * @return the type
     * @throws IllegalArgumentException if the name is none of this enum's constants, listing the valid names
     */
    public static FieldType parse(String name) {
        for (FieldType t : values()) {
            if (t.name().equalsIgnoreCase(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown field type '" + name + "'; valid types: "
                + java.util.Arrays.toString(values()).toLowerCase(java.util.Locale.ROOT));
    }
}
