package io.weir.rest.node;

import io.weir.api.FieldType;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.plugin.SourceFactory;
import io.weir.api.sink.TwoPhaseCommittingSink;
import io.weir.api.source.SourceReader;
import io.weir.core.plugin.MapPluginRegistry;

/** A registry with one source ("numbers", one long field n) and one sink ("discard"). */
public final class TestPlugins {
    private TestPlugins() {
    }

    /** @param name job name @param parallelism of both operators @return a valid job spec */
    public static String job(String name, int parallelism) {
        return """
                {"name": "%s", "operators": [
                  {"id": "src", "type": "numbers", "parallelism": %d},
                  {"id": "sink", "type": "discard", "parallelism": %d, "inputs": ["src"]}
                ]}""".formatted(name, parallelism, parallelism);
    }

    /** @return the registry */
    public static MapPluginRegistry registry() {
        MapPluginRegistry registry = new MapPluginRegistry();
        registry.addSource(new SourceFactory() {
            @Override
            public String type() {
                return "numbers";
            }

            @Override
            public java.util.List<io.weir.api.plugin.PluginSetting> settings() {
                return java.util.List.of(io.weir.api.plugin.PluginSetting.required("path", "string", "the file"),
                        io.weir.api.plugin.PluginSetting.optional("limit", "long", null, "records, then end"),
                        io.weir.api.plugin.PluginSetting.optional("keys", "long", "16", "distinct keys"));
            }

            @Override
            public Schema outputSchema(PluginConfig config) {
                return Schema.builder().field("n", FieldType.LONG).build();
            }

            @Override
            public boolean isBounded(PluginConfig config) {
                return true;
            }

            @Override
            public SourceReader create(PluginConfig config, Schema output) {
                throw new UnsupportedOperationException("these tests never run readers");
            }
        });
        registry.addSink(discard());
        return registry;
    }

    /** @return a new "discard" sink factory (a new object per call, as each bundle revision registers its own) */
    public static SinkFactory discard() {
        return new SinkFactory() {
            @Override
            public String type() {
                return "discard";
            }

            @Override
            public void validate(PluginConfig config, Schema input) {
            }

            @Override
            public TwoPhaseCommittingSink<?> create(PluginConfig config, Schema input) {
                throw new UnsupportedOperationException("these tests never run sinks");
            }
        };
    }
}
