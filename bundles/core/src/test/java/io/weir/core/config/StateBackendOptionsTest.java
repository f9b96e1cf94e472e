package io.weir.core.config;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StateBackendOptionsTest {
    @Test
    void sizesAcceptBytesAndBinaryUnits() {
        assertThat(StateBackendOptions.parseBytes(4096)).isEqualTo(4096);
        assertThat(StateBackendOptions.parseBytes("4096")).isEqualTo(4096);
        assertThat(StateBackendOptions.parseBytes("16 kb")).isEqualTo(16 * 1024);
        assertThat(StateBackendOptions.parseBytes("64MB")).isEqualTo(64L * 1024 * 1024);
        assertThat(StateBackendOptions.parseBytes(" 2 g ")).isEqualTo(2L * 1024 * 1024 * 1024);
    }

    @Test
    void badSizesAndChoicesAreRefusedNamingTheKey() {
        Configuration c = Configuration.empty().with("state.backend.rocksdb.writebuffer.size", "64 parsecs");
        assertThatThrownBy(() -> c.get(StateBackendOptions.ROCKSDB_WRITE_BUFFER_SIZE))
                .hasMessageContaining("state.backend.rocksdb.writebuffer.size").hasMessageContaining("'64 mb'");
        Configuration style = Configuration.empty().with("state.backend.rocksdb.compaction.style", "tiered");
        assertThatThrownBy(() -> style.get(StateBackendOptions.ROCKSDB_COMPACTION_STYLE))
                .hasMessageContaining("state.backend.rocksdb.compaction.style").hasMessageContaining("UNIVERSAL");
        assertThatThrownBy(() -> StateBackendOptions.parseBytes("99999999999 gb")).hasMessageContaining("too large");
        assertThatThrownBy(() -> StateBackendOptions.ROCKSDB_THREADS.check(0)).hasMessageContaining(">= 1");
    }
}
