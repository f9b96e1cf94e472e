package io.weir.state.heap;

import io.weir.core.checkpoint.OperatorStateHandle;
import io.weir.core.state.KeyedStateBackend;
import io.weir.core.state.KeyedStateBackendParameters;
import io.weir.core.state.OperatorStateBackend;
import io.weir.core.state.StateBackend;
import io.weir.state.heap.keyed.HeapKeyedStateBackend;
import io.weir.state.heap.operator.HeapOperatorStateBackend;
import org.osgi.service.component.annotations.Component;

import java.io.IOException;
import java.util.List;

/**
 * The HashMap state backend ({@code state.backend.type = hashmap}, PROTOCOL.md §7): keyed state in
 * per-key-group hash maps on the JVM heap with copy-on-write snapshots ({@link HeapKeyedStateBackend}),
 * operator list state in plain lists ({@link HeapOperatorStateBackend}).
 *
 * <p>Registered as an OSGi service with {@code weir.type=hashmap}; outside OSGi it is found through
 * {@code ServiceLoader} ({@code META-INF/services}). Stateless and thread-safe.
 */
@Component(service = StateBackend.class, property = "weir.type=" + HeapStateBackend.TYPE)
public final class HeapStateBackend implements StateBackend {
    /** The backend type name. */
    public static final String TYPE = "hashmap";

    /** Public no-arg constructor for DS and ServiceLoader. */
    public HeapStateBackend() {
    }

    /** @return {@value #TYPE} */
    @Override
    public String type() {
        return TYPE;
    }

    /**
     * Restores the key groups of {@code parameters.keyGroupRange()} from the given handles, reading
     * only those key groups.
     *
     * @throws IOException naming the file and the subtask if restore state is missing or corrupt
     */
    @Override
    public KeyedStateBackend createKeyedStateBackend(KeyedStateBackendParameters parameters) throws IOException {
        return new HeapKeyedStateBackend(parameters);
    }

    /**
     * Restores the elements listed in the handles' offsets, concatenating lists of the same name.
     *
     * @throws IOException naming the file and the operator if restore state is missing or corrupt
     */
    @Override
    public OperatorStateBackend createOperatorStateBackend(String operatorId, List<OperatorStateHandle> restoreState)
            throws IOException {
        return new HeapOperatorStateBackend(operatorId, restoreState);
    }
}
