package io.weir.api.state;

import java.util.List;

/**
 * A list of values: per key for keyed state, per operator subtask for operator state.
 *
 * <p>Task thread only.
 *
 * @param <T> the element type; elements must not be modified after they were added
 */
public interface ListState<T> {
    /** @return a snapshot of the elements, in insertion order (empty, never null) */
    List<T> get();

    /** Appends one element. */
    void add(T value);

    /** Replaces all elements by {@code values} (copied). */
    void update(List<T> values);

    /** Removes all elements. */
    void clear();
}
