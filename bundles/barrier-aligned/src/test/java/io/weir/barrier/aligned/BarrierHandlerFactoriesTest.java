package io.weir.barrier.aligned;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.core.barrier.CheckpointBarrierHandlerFactory;
import io.weir.core.config.Configuration;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class BarrierHandlerFactoriesTest {
    @Test
    void serviceLoaderFindsBothFactoriesByType() {
        Map<String, CheckpointBarrierHandlerFactory> byType = ServiceLoader.load(CheckpointBarrierHandlerFactory.class)
                .stream().map(ServiceLoader.Provider::get)
                .collect(Collectors.toMap(CheckpointBarrierHandlerFactory::type, f -> f));

        assertThat(byType).containsOnlyKeys("aligned", "at-least-once");
        assertThat(byType.get("aligned").create(new RecordingBarrierHandlerContext(2), Configuration.empty(), "t"))
                .isInstanceOf(AlignedBarrierHandler.class);
        assertThat(byType.get("at-least-once").create(new RecordingBarrierHandlerContext(2), Configuration.empty(), "t"))
                .isInstanceOf(BarrierTracker.class);
    }

    @Test
    void componentDescriptorsRegisterTheWeirType() throws IOException {
        assertThat(descriptor(AlignedBarrierHandlerFactory.class))
                .contains("<property name=\"weir.type\" type=\"String\" value=\"aligned\"/>")
                .contains("interface=\"io.weir.core.barrier.CheckpointBarrierHandlerFactory\"");
        assertThat(descriptor(BarrierTrackerFactory.class))
                .contains("<property name=\"weir.type\" type=\"String\" value=\"at-least-once\"/>");
    }

    /** The DS XML bnd generated into target/classes during process-classes. */
    private static String descriptor(Class<?> component) throws IOException {
        try (InputStream in = component.getClassLoader().getResourceAsStream("OSGI-INF/" + component.getName() + ".xml")) {
            assertThat(in).as("DS descriptor of %s", component.getName()).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
