package io.weir.core.checkpoint;

import java.util.Arrays;
import java.util.Objects;

/**
 * The state one master hook (an operator coordinator such as a split enumerator) returned for a
 * checkpoint (PROTOCOL.md §2). Stored inline in {@code _metadata} (format version 3,
 * {@code docs/checkpoint-format.md}) and handed back to the hook with the same id on restore.
 *
 * @param hookId the hook's stable id ({@code MasterHook#id()}), not blank
 * @param bytes the state, as the hook returned it; copied in and out, so the record is immutable
 */
public record MasterState(String hookId, byte[] bytes) {
    /** @throws IllegalArgumentException if the id is blank; NullPointerException if an argument is null */
    public MasterState {
        Objects.requireNonNull(hookId, "hookId");
        if (hookId.isBlank()) {
            throw new IllegalArgumentException("master hook id must not be blank");
        }
        bytes = Objects.requireNonNull(bytes, "bytes").clone();
    }

    /** @return a copy of the state bytes */
    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    /** @return the state size, bytes */
    public int size() {
        return bytes.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MasterState m && hookId.equals(m.hookId) && Arrays.equals(bytes, m.bytes);
    }

    @Override
    public int hashCode() {
        return 31 * hookId.hashCode() + Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "MasterState[" + hookId + ", " + bytes.length + " bytes]";
    }
}
