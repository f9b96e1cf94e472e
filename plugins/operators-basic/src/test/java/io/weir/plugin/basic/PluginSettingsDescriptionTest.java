package io.weir.plugin.basic;

import io.weir.api.FieldType;
import io.weir.api.Schema;
import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.PluginSetting;
import io.weir.plugin.basic.aggregate.KeyedAggregateFactory;
import io.weir.plugin.basic.discard.DiscardSinkFactory;
import io.weir.plugin.basic.filter.FilterOperatorFactory;
import io.weir.plugin.basic.project.ProjectOperatorFactory;
import io.weir.plugin.basic.window.WindowAggregateFactory;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The settings a factory describes ({@code weir plugins}, {@code GET /plugins}) are exactly the keys its validation
 * reads: validating an empty config asks for every setting before it fails (PluginConfig's contract).
 */
class PluginSettingsDescriptionTest {
    private static final Schema INPUT = Schema.builder().field("origin", FieldType.STRING).field("delay", FieldType.LONG).build();

    @Test
    void filterProjectAndKeyedAggregateDescribeTheKeysTheirValidationReads() {
        for (OperatorFactory factory : List.of(new FilterOperatorFactory(), new ProjectOperatorFactory(), new KeyedAggregateFactory(),
                new WindowAggregateFactory())) {
            PluginConfig config = new PluginConfig("operators[1].config", Map.of(), Path.of("."));
            catchThrowable(() -> factory.outputSchema(config, INPUT));

            assertThat(factory.settings()).as(factory.type()).extracting(PluginSetting::name)
                    .containsExactlyInAnyOrderElementsOf(config.askedKeys());
        }
        assertThat(new FilterOperatorFactory().settings()).extracting(PluginSetting::name)
                .containsExactly("field", "op", "value", "sleep-ms-per-record");
        assertThat(new KeyedAggregateFactory().settings()).filteredOn(PluginSetting::required).extracting(PluginSetting::name)
                .containsExactly("key", "aggregates");
    }

    @Test
    void windowAggregateDeclaresItsLateOutputAsASideOutput() {
        PluginConfig config = new PluginConfig("operators[1].config", Map.of("late-output", "late"), Path.of("."));
        assertThat(new WindowAggregateFactory().sideOutputs(config)).containsExactly("late");
        assertThat(new WindowAggregateFactory().sideOutputs(new PluginConfig("c", Map.of(), Path.of(".")))).isEmpty();
    }

    @Test
    void discardTakesNoSettings() {
        assertThat(new DiscardSinkFactory().settings()).isEmpty();
    }
}
