package io.weir.api.state;

/**
 * One value per key, scoped to the key of the record being processed.
 *
 * <p>Task thread only: call it from {@code processElement} (or a timer/mail) of a keyed operator.
 *
 * @param <T> the value type; values must not be modified after {@link #update}
 */
public interface ValueState<T> {
    /** @return the current key's value, or null if none was set */
    T value();

    /** Sets the current key's value; null clears it. */
    void update(T value);

    /** Removes the current key's value. */
    void clear();
}
