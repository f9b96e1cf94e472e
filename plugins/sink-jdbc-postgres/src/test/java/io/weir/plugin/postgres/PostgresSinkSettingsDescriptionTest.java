package io.weir.plugin.postgres;

import io.weir.api.FieldType;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.PluginSetting;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The settings {@code jdbc-postgres} describes ({@code weir plugins}, {@code GET /plugins}) are exactly the keys its
 * validation reads: validating an empty config asks for every setting before it fails on the missing url
 * (PluginConfig's contract), and docs/connectors-postgres.md's option table lists the same keys with the same
 * defaults. Contacts no server.
 */
class PostgresSinkSettingsDescriptionTest {
    private static final Schema INPUT = Schema.builder().field("origin", FieldType.STRING).field("flights", FieldType.LONG).build();

    @Test
    void describedSettingsAreTheKeysValidationReads() {
        PostgresSinkFactory factory = new PostgresSinkFactory();
        PluginConfig config = new PluginConfig("operators[2].config", Map.of(), Path.of("."));
        assertThatThrownBy(() -> factory.validate(config, INPUT)).hasMessageContaining("operators[2].config.url");

        assertThat(factory.settings()).extracting(PluginSetting::name).containsExactlyInAnyOrderElementsOf(config.askedKeys());
        assertThat(factory.settings()).extracting(s -> s.name() + "=" + s.defaultValue() + (s.required() ? " required" : ""))
                .containsExactly("url=null required", "user=null required", "password=null", "password-env=null",
                        "password-file=null", "table=null required", "mode=insert", "key=null", "batch-size=500",
                        "connect-timeout-s=10", "commit-attempts=3", "retry-backoff-ms=500", "allow-without-checkpointing=false",
                        "debug.inject-delay.before-commit-prepared=0", "lock-timeout-ms=30000");
    }

    @Test
    void theDocsOptionTableListsEverySettingWithItsDefault() throws Exception {
        String doc = Files.readString(Path.of("../../docs/connectors-postgres.md"));
        Matcher rows = Pattern.compile("(?m)^\\| `([a-z.-]+)`[^|]*\\| ([^|]+) \\|").matcher(doc);
        Map<String, String> documented = new java.util.TreeMap<>();
        while (rows.find()) {
            documented.put(rows.group(1), rows.group(2).strip());
        }
        Map<String, String> described = new java.util.TreeMap<>();
        for (PluginSetting s : new PostgresSinkFactory().settings()) {
            described.put(s.name(), s.required() ? "required" : s.defaultValue() == null ? "none" : "`" + s.defaultValue() + "`");
        }
        assertThat(documented).isEqualTo(described);
    }
}
