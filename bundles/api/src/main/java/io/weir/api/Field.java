package io.weir.api;

import java.util.Objects;

/**
 * One named, typed field of a {@link Schema}.
 *
 * @param name the field name, non-empty
 * @param type the value type
 */
public record Field(String name, FieldType type) {
    /** @throws IllegalArgumentException if the name is empty or the type is null */
    public Field {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("field name must not be empty");
        }
        Objects.requireNonNull(type, "type of field " + name);
    }
}
