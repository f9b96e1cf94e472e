package io.weir.api.state;

/**
 * A single value per key that every {@link #add} folds into with a {@link ReduceFunction}.
 *
 * <p>Task thread only.
 *
 * @param <T> the value type
 */
public interface ReducingState<T> {
    /** @return the reduced value, or null if nothing was added */
    T get();

    /** Reduces {@code value} into the current value (or stores it if there is none). */
    void add(T value) throws Exception;

    /** Removes the current key's value. */
    void clear();
}
