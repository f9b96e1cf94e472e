package io.weir.state.heap;

import io.weir.core.state.StateBackend;
import org.junit.jupiter.api.Test;

import java.util.ServiceLoader;

import static org.assertj.core.api.Assertions.assertThat;

class HeapStateBackendTest {
    @Test
    void backendIsFoundThroughServiceLoaderAsHashmap() {
        assertThat(ServiceLoader.load(StateBackend.class).stream().map(p -> p.get().type()))
                .contains("hashmap");
    }
}
