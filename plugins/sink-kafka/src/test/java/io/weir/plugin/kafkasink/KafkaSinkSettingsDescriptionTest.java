package io.weir.plugin.kafkasink;

import io.weir.api.FieldType;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.PluginSetting;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The settings {@code kafka-2pc} describes ({@code weir plugins}, {@code GET /plugins}) are exactly the keys its
 * validation reads: validating an empty config asks for every setting before it fails (PluginConfig's contract).
 * Contacts no broker: validation fails on the missing bootstrap-servers first.
 */
class KafkaSinkSettingsDescriptionTest {
    private static final Schema INPUT = Schema.builder().field("origin", FieldType.STRING).field("flights", FieldType.LONG).build();

    @Test
    void describedSettingsAreTheKeysValidationReads() {
        KafkaSinkFactory factory = new KafkaSinkFactory();
        PluginConfig config = new PluginConfig("operators[2].config", Map.of(), Path.of("."));
        assertThatThrownBy(() -> factory.validate(config, INPUT)).hasMessageContaining("bootstrap-servers");

        // properties.<kafka-client-key> is a family of keys, read by prefix: only the named settings are asked for
        assertThat(factory.settings()).extracting(PluginSetting::name).filteredOn(n -> !n.startsWith("properties."))
                .containsExactlyInAnyOrderElementsOf(config.askedKeys());
        assertThat(factory.settings()).extracting(s -> s.name() + "=" + s.defaultValue() + (s.required() ? " required" : ""))
                .containsExactly("bootstrap-servers=null required", "topic=null required", "format=json", "key-field=null",
                        "transaction-timeout-ms=900000", "ignore-lost-transactions=false", "transactional-id-prefix=null",
                        "allow-without-checkpointing=false", "delivery-guarantee=exactly-once",
                        "debug.inject-delay.before-commit=0", "properties.<kafka-client-key>=null");
    }

    @Test
    void theDocsOptionTableListsExactlyTheDescribedSettings() throws Exception {
        String doc = java.nio.file.Files.readString(Path.of("../../docs/connectors-kafka.md"));
        int from = doc.indexOf("## `kafka-2pc` sink");
        int to = doc.indexOf("\n## ", from + 1);
        java.util.regex.Matcher rows = java.util.regex.Pattern.compile("(?m)^\\| `([a-z.<>-]+)` \\|")
                .matcher(doc.substring(from, to < 0 ? doc.length() : to));
        java.util.List<String> documented = new java.util.ArrayList<>();
        while (rows.find()) {
            documented.add(rows.group(1));
        }
        assertThat(documented).containsExactlyElementsOf(new KafkaSinkFactory().settings().stream().map(PluginSetting::name).toList());
    }
}
