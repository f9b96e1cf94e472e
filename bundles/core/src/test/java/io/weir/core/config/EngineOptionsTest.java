package io.weir.core.config;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The engine's configuration as ConfigurationAdmin delivers it: strings from a .cfg file, plus its own keys. */
class EngineOptionsTest {

    @Test
    void valuesFromACfgFileAreParsedAndConfigAdminKeysIgnored() {
        Configuration config = EngineOptions.fromProperties(Map.of("state.async-snapshot.threads", "5",
                "service.pid", "io.weir.engine", "felix.fileinstall.filename", "file:/weir/conf/engine/io.weir.engine.cfg"), "x.cfg");
        assertThat(config.get(EngineOptions.ASYNC_THREADS)).isEqualTo(5);
        assertThat(EngineOptions.fromProperties(Map.of(), "x.cfg").get(EngineOptions.ASYNC_THREADS)).isEqualTo(2);
    }

    @Test
    void badValueNamesTheFileTheKeyAndTheBound() {
        assertThatThrownBy(() -> EngineOptions.fromProperties(Map.of("state.async-snapshot.threads", "0"), "conf/engine/io.weir.engine.cfg"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("conf/engine/io.weir.engine.cfg: state.async-snapshot.threads=0 must be >= 1, got 0");
        assertThatThrownBy(() -> EngineOptions.fromProperties(Map.of("state.async-snapshot.threads", "many"), "e.cfg"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("e.cfg: state.async-snapshot.threads=many ");
    }

    @Test
    void engineAndJobOptionsAreDisjoint() {
        for (ConfigOption<?> o : EngineOptions.all()) {
            assertThat(ExecutionOptions.all()).extracting(ConfigOption::key).doesNotContain(o.key());
            assertThat(CheckpointingOptions.all()).extracting(ConfigOption::key).doesNotContain(o.key());
        }
    }
}
