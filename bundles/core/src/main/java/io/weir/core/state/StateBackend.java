package io.weir.core.state;

import io.weir.core.checkpoint.OperatorStateHandle;

import java.util.List;

/**
 * Creates keyed and operator state backends; found by {@link #type()} as an OSGi service or through
 * ServiceLoader ({@code state.backend.type}). Thread-safe.
 */
public interface StateBackend {
    /** @return the type name, e.g. {@code "hashmap"} */
    String type();

    /**
     * @throws java.io.IOException if restore state cannot be read or is corrupt, naming the file
     */
    KeyedStateBackend createKeyedStateBackend(KeyedStateBackendParameters parameters) throws Exception;

    /**
     * @param operatorId operator, for errors
     * @param restoreState handles to restore from (empty on a fresh start)
     * @throws java.io.IOException if restore state cannot be read or is corrupt, naming the file
     */
    OperatorStateBackend createOperatorStateBackend(String operatorId, List<OperatorStateHandle> restoreState) throws Exception;
}
