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
    /** Current key; null before the first {@code setCurrentKey}. */
    Row key;
    /** Current key group minus the range start; -1 before the first {@code setCurrentKey}. */
    int keyGroupIndex = -1;
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

    /** @throws IllegalStateException if no key was set yet */
    void requireKey(String stateName) {
        if (key == null) {
            throw new IllegalStateException("keyed state '" + stateName + "' used before a current key was set");
        }
    }
}
