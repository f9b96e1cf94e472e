package io.weir.state.rocksdb;

import io.weir.core.config.Configuration;
import io.weir.core.state.KeyGroupRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static io.weir.state.rocksdb.RocksDBKeyedStateBackendTest.MAX_PARALLELISM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@code state.backend.rocksdb.*} options reach RocksDB (read back from the OPTIONS file it writes) and are validated. */
class RocksDBResourcesTest {
    @TempDir
    Path local;

    private RocksDBKeyedStateBackend open(Configuration config) throws Exception {
        return (RocksDBKeyedStateBackend) TestBackends.create(new RocksDBStateBackend(), local,
                new KeyGroupRange(0, MAX_PARALLELISM - 1), List.of(), config);
    }

    private static String optionsFile(RocksDBKeyedStateBackend b) throws Exception {
        try (Stream<Path> files = Files.list(b.directory().resolve("db"))) {
            Path newest = files.filter(p -> p.getFileName().toString().startsWith("OPTIONS-")).sorted().reduce((x, y) -> y).orElseThrow();
            return Files.readString(newest);
        }
    }

    /** Opens a backend with {@code config} and checks that RocksDB's OPTIONS file has every {@code expected} line part. */
    private void assertRocksDbOptions(Configuration config, String... expected) throws Exception {
        RocksDBKeyedStateBackend b = open(config);
        try {
            assertThat(optionsFile(b)).contains(expected);
        } finally {
            b.close();
        }
    }

    @Test
    void explicitOptionsReachRocksDB() throws Exception {
        assertRocksDbOptions(Configuration.empty()
                        .with("state.backend.rocksdb.block.blocksize", "16 kb")
                        .with("state.backend.rocksdb.writebuffer.size", "8 mb")
                        .with("state.backend.rocksdb.writebuffer.count", 3)
                        .with("state.backend.rocksdb.compaction.style", "universal")
                        .with("state.backend.rocksdb.thread.num", 3),
                "block_size=16384", "write_buffer_size=8388608", "max_write_buffer_number=3",
                "compaction_style=kCompactionStyleUniversal", "max_background_jobs=3");
    }

    @Test
    void predefinedOptionsApplyAndExplicitOnesOverrideThem() throws Exception {
        assertRocksDbOptions(Configuration.empty()
                        .with("state.backend.rocksdb.predefined-options", "SPINNING_DISK_OPTIMIZED_HIGH_MEM")
                        .with("state.backend.rocksdb.writebuffer.count", 5),
                "block_size=131072", "max_write_buffer_number=5", "level_compaction_dynamic_level_bytes=true",
                "max_background_jobs=4", "bloomfilter");
    }

    @Test
    void invalidOptionsAreRefusedNamingTheKeyAndLeaveNoDirectory() throws Exception {
        assertThatThrownBy(() -> open(Configuration.empty().with("state.backend.rocksdb.thread.num", 0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("configuration 'state.backend.rocksdb.thread.num': must be >= 1, got 0");
        assertThatThrownBy(() -> open(Configuration.empty().with("state.backend.rocksdb.predefined-options", "FAST")))
                .hasMessageContaining("state.backend.rocksdb.predefined-options").hasMessageContaining("FLASH_SSD_OPTIMIZED");
        assertThat(local).isEmptyDirectory();
    }
}
