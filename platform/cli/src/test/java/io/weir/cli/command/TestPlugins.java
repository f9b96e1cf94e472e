package io.weir.cli.command;

import io.weir.api.FieldType;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.plugin.SourceFactory;
import io.weir.api.sink.TwoPhaseCommittingSink;
import io.weir.api.source.SourceReader;
import io.weir.core.plugin.MapPluginRegistry;

/** A registry with one source ("numbers", one long field n) and one sink ("discard"). */
final class TestPlugins {
    private TestPlugins() {
    }

    static MapPluginRegistry registry() {
        MapPluginRegistry registry = new MapPluginRegistry();
        registry.addSource(new SourceFactory() {
            @Override
            public String type() {
                return "numbers";
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
                throw new UnsupportedOperationException("the CLI tests never run readers");
            }
        });
        registry.addSink(new SinkFactory() {
            @Override
            public String type() {
                return "discard";
            }

            @Override
            public void validate(PluginConfig config, Schema input) {
            }

            @Override
            public TwoPhaseCommittingSink<?> create(PluginConfig config, Schema input) {
                throw new UnsupportedOperationException("the CLI tests never run sinks");
            }
        });
        return registry;
    }
}
