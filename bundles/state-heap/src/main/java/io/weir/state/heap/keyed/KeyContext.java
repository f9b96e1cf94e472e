package io.weir.state.heap.keyed;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.RowSerializer;

/**
 * The current key and the snapshot epoch, shared by a keyed backend and its states.
 *
 * <p>Task thread only (every mutable field).
 */
final class KeyContext {
    /**
     * Whether every key is a row of one LONG, INT or TIMESTAMP field: the state tables then compare keys by that
     * field's value (see {@link KeyGroupMap}). Immutable.
     */
    final boolean integralKeys;
    /**
     * Current key; null before the first {@code setCurrentKey}. Possibly a row the runtime overwrites with the next
     * record's key (the backend accepts reused key rows): read it, compare by value, and keep {@link #retainedKey()}
     * instead.
     */
    Row key;
    /** Current key group minus the range start; -1 before the first {@code setCurrentKey}. */
    int keyGroupIndex = -1;
    /** Counts {@link #setKey} calls: which current key a state table's remembered slot belongs to. */
    long keySerial;
    /** A copy of {@link #key} made by {@link #retainedKey()} since the latest {@link #setKey}, else null. */
    private Row retainedKey;
    /**
     * The state version, incremented by every snapshot. A list/map container created in epoch {@code e} may be
     * changed in place only while {@code epoch == e}: once a snapshot has been taken it may be referenced by that
     * snapshot and must be copied before a change. Key-group maps and value-state values are copied only while a
     * snapshot that may reference them runs ({@link #snapshots}, see {@link StateTable}).
     */
    long epoch;
    /** The snapshots whose asynchronous part still runs; thread-safe (written by the writers' threads too). */
    final RunningSnapshots snapshots = new RunningSnapshots();

    /** @param integralKeys whether every key is a row of one LONG, INT or TIMESTAMP field */
    KeyContext(boolean integralKeys) {
        this.integralKeys = integralKeys;
    }

    /**
     * @param keySerializer the backend's key serializer
     * @return whether its keys are rows of one LONG, INT or TIMESTAMP field (false if it is not a {@link RowSerializer})
     */
    static boolean integralKeys(io.weir.api.serialization.TypeSerializer<Row> keySerializer) {
        if (!(keySerializer instanceof RowSerializer rows) || rows.schema().size() != 1) {
            return false;
        }
        FieldType type = rows.schema().field(0).type();
        return type == FieldType.LONG || type == FieldType.INT || type == FieldType.TIMESTAMP;
    }

    /** Makes {@code key} (in key group index {@code keyGroupIndex}) current; {@code key} may be overwritten later. */
    void setKey(Row key, int keyGroupIndex) {
        this.key = key;
        this.keyGroupIndex = keyGroupIndex;
        this.keySerial++;
        this.retainedKey = null;
    }

    /**
     * @return the current key as a row nobody changes, for whatever keeps it beyond the current record (a new
     *         state entry, a timer, the backend's {@code currentKey()}): a copy of {@link #key}, made once per
     *         current key; null before the first {@link #setKey}
     */
    Row retainedKey() {
        Row r = retainedKey;
        if (r == null && key != null) {
            r = retainedKey = new Row(key.schema(), key.values());
        }
        return r;
    }

    /** @throws IllegalStateException if no key was set yet */
    void requireKey(String stateName) {
        if (key == null) {
            throw new IllegalStateException("keyed state '" + stateName + "' used before a current key was set");
        }
    }
}
