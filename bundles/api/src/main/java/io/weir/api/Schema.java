package io.weir.api;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An ordered list of uniquely named fields: the shape of the {@link Row}s on one edge of a job.
 *
 * <p>Immutable and thread-safe. Field lookup by name is O(1).
 */
public final class Schema {
    private final List<Field> fields;
    private final Map<String, Integer> index;

    /**
     * @param fields the fields in order
     * @throws IllegalArgumentException if two fields share a name
     */
    public Schema(List<Field> fields) {
        this.fields = List.copyOf(fields);
        this.index = new HashMap<>();
        for (int i = 0; i < this.fields.size(); i++) {
            if (index.put(this.fields.get(i).name(), i) != null) {
                throw new IllegalArgumentException("duplicate field '" + this.fields.get(i).name() + "' in schema");
            }
        }
    }

    /** Starts a schema builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the fields in order, unmodifiable */
    public List<Field> fields() {
        return fields;
    }

    /** @return the number of fields */
    public int size() {
        return fields.size();
    }

    /** @return the field at position {@code i} (0-based) */
    public Field field(int i) {
        return fields.get(i);
    }

    /** @return the position of the named field, or -1 if there is none */
    public int indexOf(String name) {
        Integer i = index.get(name);
        return i == null ? -1 : i;
    }

    /**
     * @return the position of the named field
     * @throws IllegalArgumentException naming the field and the available ones if it does not exist
     */
    public int require(String name) {
        int i = indexOf(name);
        if (i < 0) {
            throw new IllegalArgumentException("no field '" + name + "'; available fields: " + names());
        }
        return i;
    }

    /** @return the field names in order */
    public List<String> names() {
        List<String> names = new ArrayList<>(fields.size());
        for (Field f : fields) {
            names.add(f.name());
        }
        return names;
    }

    /**
     * @param names fields to keep, in the order wanted
     * @return a schema of just those fields
     * @throws IllegalArgumentException if a name is unknown
     */
    public Schema project(List<String> names) {
        List<Field> out = new ArrayList<>(names.size());
        for (String n : names) {
            out.add(fields.get(require(n)));
        }
        return new Schema(out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Schema s && s.fields.equals(fields);
    }

    @Override
    public int hashCode() {
        return fields.hashCode();
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(fields.get(i).name()).append(' ').append(fields.get(i).type().name().toLowerCase());
        }
        return sb.append(')').toString();
    }

    /** Collects fields for a {@link Schema}. Not thread-safe. */
    public static final class Builder {
        private final List<Field> fields = new ArrayList<>();

        /** Adds a field at the end. */
        public Builder field(String name, FieldType type) {
            fields.add(new Field(name, type));
            return this;
        }

        /** @return the schema; see {@link Schema#Schema(List)} for errors */
        public Schema build() {
            return new Schema(fields);
        }
    }
}
