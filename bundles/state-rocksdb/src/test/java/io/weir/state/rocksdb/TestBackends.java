package io.weir.state.rocksdb;

import io.weir.api.RowSerializer;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.config.Configuration;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyedStateBackend;
import io.weir.core.state.KeyedStateBackendParameters;
import io.weir.core.state.StateBackend;

import java.nio.file.Path;
import java.util.List;

import static io.weir.state.rocksdb.RocksDBKeyedStateBackendTest.KEY_SCHEMA;
import static io.weir.state.rocksdb.RocksDBKeyedStateBackendTest.MAX_PARALLELISM;

/** Creates keyed backends of subtask 0 of job "job", operator "op", with the tests' key schema and max parallelism. */
final class TestBackends {
    private TestBackends() {
    }

    /**
     * @param local the RocksDB local directory ({@code state.backend.rocksdb.localdir})
     * @param config further options
     */
    static KeyedStateBackend create(StateBackend type, Path local, KeyGroupRange range, List<KeyGroupsStateHandle> restore,
            Configuration config) throws Exception {
        return type.createKeyedStateBackend(new KeyedStateBackendParameters("job", "op", 0, MAX_PARALLELISM, range,
                new RowSerializer(KEY_SCHEMA), restore, config.with("state.backend.rocksdb.localdir", local.toString())));
    }
}
