package io.weir.plugin.basic.aggregate;

import java.util.Objects;

/**
 * One entry of a {@code keyed-aggregate}'s {@code aggregates} list.
 *
 * @param function the function
 * @param field the input field; null for {@link AggregateFunction#COUNT}, required otherwise
 * @param as the output field name ({@code as}; default {@code count} or {@code <fn>_<field>})
 */
public record AggregateSpec(AggregateFunction function, String field, String as) {
    /** @throws IllegalArgumentException if a field is given to count, missing for the others, or {@code as} is empty */
    public AggregateSpec {
        Objects.requireNonNull(function, "function");
        if (function == AggregateFunction.COUNT && field != null) {
            throw new IllegalArgumentException("count takes no field, got '" + field + "'");
        }
        if (function != AggregateFunction.COUNT && (field == null || field.isEmpty())) {
            throw new IllegalArgumentException(function.jobName() + " needs a field");
        }
        if (as == null || as.isEmpty()) {
            throw new IllegalArgumentException("output name must not be empty");
        }
    }
}
