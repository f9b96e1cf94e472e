package io.weir.api.serialization;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * Writes values of one type to a binary stream and reads them back: used for network records,
 * keyed and operator state, and two-phase-commit transaction handles.
 *
 * <p>Implementations must be stateless and thread-safe, and the binary form must be stable across
 * versions of the plugin that defines it, since it ends up in checkpoints. Values handed to state
 * are treated as immutable: a value must not be modified after it was put into state.
 *
 * @param <T> the value type
 */
public interface TypeSerializer<T> {
    /**
     * Writes one value.
     *
     * @throws IOException if the stream fails
     */
    void serialize(T value, DataOutput out) throws IOException;

    /**
     * Reads one value written by {@link #serialize}.
     *
     * @throws IOException if the stream fails or holds bytes that are not a value of this type
     */
    T deserialize(DataInput in) throws IOException;
}
