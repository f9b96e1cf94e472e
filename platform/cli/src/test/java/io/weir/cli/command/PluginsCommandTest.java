package io.weir.cli.command;

import io.weir.api.FieldType;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.PluginSetting;
import io.weir.api.plugin.SourceFactory;
import io.weir.api.source.SourceReader;
import io.weir.core.plugin.MapPluginRegistry;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code weir plugins}: a type's settings are listed under it, aligned; a type without settings says so. */
class PluginsCommandTest {
    @Test
    void eachTypeIsFollowedByItsSettingsWithTypeRequiredOrDefaultAndDescription() {
        MapPluginRegistry registry = TestPlugins.registry(); // "numbers" source, "discard" sink, no settings
        registry.addSource(new SourceFactory() {
            @Override
            public String type() {
                return "gen";
            }

            @Override
            public List<PluginSetting> settings() {
                return List.of(PluginSetting.required("path", "string", "the file"),
                        PluginSetting.optional("record-size", "long", "100", "payload bytes"),
                        PluginSetting.optional("limit", "long", null, "records, then end"));
            }

            @Override
            public Schema outputSchema(PluginConfig config) {
                return Schema.builder().field("n", FieldType.LONG).build();
            }

            @Override
            public boolean isBounded(PluginConfig config) {
                return false;
            }

            @Override
            public SourceReader create(PluginConfig config, Schema output) {
                throw new UnsupportedOperationException();
            }
        });
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        int rc = PluginsCommand.run(registry, f -> "bundle.of." + (f instanceof SourceFactory ? "source 1.0" : "sink 1.0"),
                new PrintStream(bytes, true, StandardCharsets.UTF_8));

        assertThat(rc).isZero();
        assertThat(bytes.toString(StandardCharsets.UTF_8).lines().toList()).containsExactly(
                "TYPE     KIND    FROM",
                "discard  sink    bundle.of.sink 1.0",
                "    (no settings)",
                "gen      source  bundle.of.source 1.0",
                "    path         string  required     the file",
                "    record-size  long    default 100  payload bytes",
                "    limit        long    optional     records, then end",
                "numbers  source  bundle.of.source 1.0",
                "    (no settings)",
                "Settings go into an operator's \"config\" object of a job file (docs/job-format.md).");
    }

    @Test
    void thePluginTableListsEachPluginWithItsTypesAndAFailedOnesErrorBelowIt() {
        List<io.weir.core.inventory.InstalledPlugin> inventory = List.of(
                new io.weir.core.inventory.InstalledPlugin("boom", "1.0.0", "ACTIVE", "boom.jar",
                        List.of(new io.weir.core.inventory.PluginType("boom-op", "operator")),
                        "component boom.Boom failed to activate: java.lang.IllegalStateException: no licence"),
                new io.weir.core.inventory.InstalledPlugin("io.weir.plugins.file", "0.1.0", "ACTIVE", "source-file.jar",
                        List.of(new io.weir.core.inventory.PluginType("file", "source")), null),
                new io.weir.core.inventory.InstalledPlugin(null, null, "FAILED", "x.jar", List.of(), "x.jar is not a jar (zip) file"));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        int rc = PluginsCommand.run(new MapPluginRegistry(), f -> "?", inventory, new PrintStream(bytes, true, StandardCharsets.UTF_8));

        assertThat(rc).isZero();
        assertThat(bytes.toString(StandardCharsets.UTF_8).lines().toList()).startsWith(
                "PLUGIN                VERSION  STATE   FILE             TYPES",
                "boom                  1.0.0    ACTIVE  boom.jar         boom-op (operator)",
                "    error: component boom.Boom failed to activate: java.lang.IllegalStateException: no licence",
                "io.weir.plugins.file  0.1.0    ACTIVE  source-file.jar  file (source)",
                "-                     -        FAILED  x.jar            -",
                "    error: x.jar is not a jar (zip) file",
                "2 plugin(s) failed; see docs/plugins.md, \"Bad plugins\".");
    }
}
