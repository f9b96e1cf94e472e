package io.weir.api.state;

/**
 * Combines two values into one; must be associative and must not modify its arguments.
 *
 * @param <T> the value type
 */
@FunctionalInterface
public interface ReduceFunction<T> {
    /** @return the combination of {@code a} (the current value) and {@code b} (the added one) */
    T reduce(T a, T b) throws Exception;
}
