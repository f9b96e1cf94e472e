package io.weir.state.rocksdb;

import io.weir.core.checkpoint.OperatorStateHandle;
import io.weir.core.config.Configuration;
import io.weir.core.config.StateBackendOptions;
import io.weir.core.state.KeyedStateBackend;
import io.weir.core.state.KeyedStateBackendParameters;
import io.weir.core.state.OperatorStateBackend;
import io.weir.core.state.StateBackend;
import io.weir.state.heap.HeapStateBackend;
import org.osgi.service.component.annotations.Component;
import org.rocksdb.RocksDB;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.List;

/**
 * The RocksDB state backend ({@code state.backend.type = rocksdb}, Flink's name): keyed state in an embedded
 * RocksDB per operator subtask ({@link RocksDBKeyedStateBackend}); operator state on the heap, as in Flink
 * ({@link HeapStateBackend}). Snapshots are written in the backend-independent keyed-state format, so jobs
 * switch between this backend and {@code hashmap} through any checkpoint or savepoint (docs/state-rocksdb.md).
 *
 * <p>Registered as an OSGi service with {@code weir.type=rocksdb}; outside OSGi found through
 * {@code ServiceLoader}. The native library (embedded in this bundle) is loaded on the first keyed backend.
 * Stateless apart from that one-time load; thread-safe.
 */
@Component(service = StateBackend.class, property = "weir.type=" + RocksDBStateBackend.TYPE)
public final class RocksDBStateBackend implements StateBackend {
    /** The backend type name. */
    public static final String TYPE = "rocksdb";
    private static final Logger LOG = LoggerFactory.getLogger(RocksDBStateBackend.class);

    private final HeapStateBackend operatorStates = new HeapStateBackend();
    private volatile boolean libraryLoaded;

    /** Public no-arg constructor for DS and ServiceLoader. */
    public RocksDBStateBackend() {
    }

    /** @return {@value #TYPE} */
    @Override
    public String type() {
        return TYPE;
    }

    /**
     * Creates the subtask's DB under {@code state.backend.rocksdb.localdir} (default {@code java.io.tmpdir}) and
     * restores the key groups of {@code parameters.keyGroupRange()} from the given handles (written by this or
     * the heap backend, with any parallelism). With {@code state.backend.incremental=true}, checkpoints (not
     * savepoints) are incremental.
     *
     * @throws java.io.IOException naming the file and the subtask if restore state is missing or corrupt, or
     *         the directory if the DB cannot be created
     */
    @Override
    public KeyedStateBackend createKeyedStateBackend(KeyedStateBackendParameters parameters) throws Exception {
        Configuration config = parameters.config();
        loadLibrary();
        String dir = config.get(StateBackendOptions.ROCKSDB_LOCAL_DIR);
        Path local = Path.of(dir != null ? dir : System.getProperty("java.io.tmpdir"));
        return new RocksDBKeyedStateBackend(parameters, local, config.get(StateBackendOptions.INCREMENTAL));
    }

    private void loadLibrary() {
        if (!libraryLoaded) {
            long start = System.nanoTime();
            RocksDB.loadLibrary();
            libraryLoaded = true;
            LOG.info("RocksDB native library loaded in {} ms", (System.nanoTime() - start) / 1_000_000);
        }
    }

    /**
     * Operator state stays on the heap ({@link HeapStateBackend#createOperatorStateBackend}).
     *
     * @throws java.io.IOException naming the file and the operator if restore state is missing or corrupt
     */
    @Override
    public OperatorStateBackend createOperatorStateBackend(String operatorId, List<OperatorStateHandle> restoreState)
            throws Exception {
        return operatorStates.createOperatorStateBackend(operatorId, restoreState);
    }
}
