package io.weir.core.state;

import io.weir.api.Row;
import io.weir.api.state.KeyedStateStore;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.storage.CheckpointStreamFactory;

/**
 * Keyed state of one operator subtask, grouped by key group (PROTOCOL.md §7).
 *
 * <p>Task thread only, except the {@link AsyncSnapshot} returned by {@link #snapshot}, which runs on
 * another thread while the task keeps updating state: the backend must make that safe
 * (copy-on-write for the heap backend).
 */
public interface KeyedStateBackend extends KeyedStateStore, AutoCloseable {
    /**
     * Scopes all keyed state to {@code key} until the next call.
     *
     * @param key the key fields of the current record; if {@link #acceptsReusedKeyRows()}, a row the caller may
     *        overwrite after the next call, else a row nobody changes (the backend may keep it)
     * @param keyGroup the key's group, as computed by {@link KeyHashVersion#keyGroupFor}
     * @throws IllegalArgumentException if the key group is outside this backend's range
     */
    void setCurrentKey(Row key, int keyGroup);

    /**
     * Whether {@link #setCurrentKey} may be given a key row that its caller overwrites with the next record's key
     * (one row per task instead of one per record: the runtime does so for records whose key it has no row for,
     * see {@code ChainedOperator}). A backend that answers true keeps a copy wherever it keeps the key beyond the
     * next {@link #setCurrentKey} (a new entry, a timer, {@link #currentKey()}), and recognizes the current key by
     * the call, never by the row's identity. Default false: the backend may keep the rows it is given.
     *
     * @return a constant of the backend
     */
    default boolean acceptsReusedKeyRows() {
        return false;
    }

    /** @return the current key (a row nobody changes), or null before the first record */
    Row currentKey();

    /** @return the key groups this backend owns */
    KeyGroupRange keyGroupRange();

    /**
     * Returns the timer queue named {@code name} (e.g. {@code "_timers/event"}), creating it on the first
     * call and loading its restored timers; later calls return the same queue. Its timers are part of every
     * snapshot of this backend.
     *
     * @throws UnsupportedOperationException if this backend keeps no timers (the default; a backend must
     *         override it, otherwise keyed operators using timers fail with this error at start)
     * @throws IllegalStateException if {@code name} is registered, or was checkpointed, as another kind of state
     */
    default KeyedTimerQueue timerQueue(String name) {
        throw new UnsupportedOperationException("state backend " + getClass().getSimpleName()
                + " does not support timers (needed by event-time operators such as window-aggregate); use the heap backend");
    }

    /**
     * The synchronous part of a snapshot: must be short (it blocks record processing).
     *
     * @param checkpointId the checkpoint
     * @param streams where the asynchronous part writes
     * @return the asynchronous part, producing the keyed state handle (null if there is no state)
     */
    AsyncSnapshot<KeyGroupsStateHandle> snapshot(long checkpointId, CheckpointStreamFactory streams) throws Exception;

    /**
     * Checkpoint {@code checkpointId} completed (task thread, after the operators were told). An incremental
     * backend may from now on reference the shared files of that checkpoint in later ones. The default does
     * nothing.
     */
    default void notifyCheckpointComplete(long checkpointId) {
    }

    /** Checkpoint {@code checkpointId} was aborted (task thread). The default does nothing. */
    default void notifyCheckpointAborted(long checkpointId) {
    }

    /** Releases memory; the backend is unusable afterwards. */
    @Override
    void close();
}
