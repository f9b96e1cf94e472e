package io.weir.api.state;

/**
 * One value per key, scoped to the key of the record being processed.
 *
 * <h2>Read-modify-write in place</h2>
 * A value may be changed in place (no new object per record) in this one pattern, within one call of
 * {@code processElement} (or of a timer or mail) for one current key:
 * <pre>{@code
 * Acc acc = state.value();      // may be a copy made for this update
 * if (acc == null) acc = new Acc();
 * acc.add(row);                 // change it in place
 * state.update(acc);            // required: makes the change part of the state
 * }</pre>
 * The descriptor's serializer must implement {@link io.weir.api.serialization.TypeSerializer#copy} as a
 * deep copy for a mutable type. What each backend does:
 * <ul>
 * <li>Heap state hands out the stored object itself, unless a running snapshot (one whose asynchronous part
 *     has not finished) still has to write it: then {@code value()} stores a copy and hands out the copy, so
 *     the snapshot writes exactly the value as of its barrier (copy-on-write per entry, as Flink's
 *     {@code CopyOnWriteStateMap}). A change without {@code update()} may therefore be kept or not.</li>
 * <li>RocksDB state deserializes a fresh object on each {@code value()}, so only {@code update()} keeps a
 *     change.</li>
 * </ul>
 * An object from {@code value()} must not be kept past the call, changed after {@code update()}, or stored
 * under another key. Values that are never changed in place (any immutable type) need none of this.
 *
 * <p>Task thread only: call it from {@code processElement} (or a timer/mail) of a keyed operator.
 *
 * @param <T> the value type
 */
public interface ValueState<T> {
    /**
     * @return the current key's value, or null if none was set; may be changed in place and passed to
     *         {@link #update} (see the class comment)
     */
    T value();

    /** Sets the current key's value; null clears it. After this call the caller must not change {@code value}. */
    void update(T value);

    /** Removes the current key's value. */
    void clear();
}
