package io.weir.barrier.unaligned;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.core.barrier.CheckpointBarrierHandlerFactory;
import io.weir.core.config.Configuration;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class UnalignedBarrierHandlerFactoryTest {
    @Test
    void serviceLoaderFindsTheUnalignedFactory() {
        List<CheckpointBarrierHandlerFactory> factories = ServiceLoader.load(CheckpointBarrierHandlerFactory.class)
                .stream().map(ServiceLoader.Provider::get).toList();

        assertThat(factories).extracting(CheckpointBarrierHandlerFactory::type).containsExactly("unaligned");
        assertThat(factories.get(0).create(new RecordingBarrierHandlerContext(2), Configuration.empty(), "t"))
                .isInstanceOf(UnalignedBarrierHandler.class);
    }

    @Test
    void componentDescriptorRegistersTheWeirType() throws IOException {
        String component = UnalignedBarrierHandlerFactory.class.getName();
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("OSGI-INF/" + component + ".xml")) {
            assertThat(in).as("DS descriptor of %s", component).isNotNull();
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
                    .contains("<property name=\"weir.type\" type=\"String\" value=\"unaligned\"/>")
                    .contains("interface=\"io.weir.core.barrier.CheckpointBarrierHandlerFactory\"");
        }
    }
}
