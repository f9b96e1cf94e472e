package io.weir.ha.hazelcast.checkpoint;

import java.io.Serializable;

/**
 * A retained checkpoint as the store map keeps it: where its {@code _metadata} is, not the state handles.
 *
 * @param checkpointId the id, ≥ 1
 * @param externalPointer the checkpoint directory ({@code .../chk-<id>}), non-blank
 * @param triggerTimestamp ms since the epoch
 * @param completionTimestamp ms since the epoch
 */
public record StoredCheckpoint(long checkpointId, String externalPointer, long triggerTimestamp, long completionTimestamp)
        implements Serializable {
    /** @throws IllegalArgumentException if the id is below 1 or the pointer blank */
    public StoredCheckpoint {
        if (checkpointId < 1 || externalPointer == null || externalPointer.isBlank()) {
            throw new IllegalArgumentException("a stored checkpoint needs an id >= 1 and a pointer, got " + checkpointId + ", "
                    + externalPointer);
        }
    }
}
