package io.weir.api.state;

import java.util.Map;

/**
 * A map of user keys to values, per key of the keyed operator.
 *
 * <p>Task thread only.
 *
 * @param <K> user key type
 * @param <V> value type; values must not be modified after {@link #put}
 */
public interface MapState<K, V> {
    /** @return the value for {@code key}, or null */
    V get(K key);

    /** Associates {@code value} with {@code key}. */
    void put(K key, V value);

    /** Removes {@code key}. */
    void remove(K key);

    /** @return whether {@code key} has a value */
    boolean contains(K key);

    /** @return a copy of all entries of the current key */
    Map<K, V> entries();

    /** Removes all entries of the current key. */
    void clear();
}
