package io.weir.rest.node;

import io.weir.api.plugin.SinkFactory;
import io.weir.core.plugin.MapPluginRegistry;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class RegistryPluginWaitTest {
    private final MapPluginRegistry registry = TestPlugins.registry();

    @Test
    void readsTheTypesOfEveryOperatorAndIgnoresWhatIsMalformed() {
        RegistryPluginWait wait = new RegistryPluginWait(registry, JsonProvider.provider(), Duration.ofSeconds(10));

        assertThat(wait.typesNamed(TestPlugins.job("a", 1))).containsExactly("discard", "numbers");
        assertThat(wait.typesNamed("{\"operators\": [{\"type\": 3}, \"x\", {\"type\": \"t\"}]}")).containsExactly("t");
        assertThat(wait.typesNamed("not json")).isEmpty();
        assertThat(wait.typesNamed("[1]")).isEmpty();
    }

    @Test
    void returnsAtOnceWhenEveryTypeIsInstalled() throws Exception {
        RegistryPluginWait wait = new RegistryPluginWait(registry, JsonProvider.provider(), Duration.ofMinutes(10));

        CompletableFuture<Void> done = CompletableFuture.runAsync(() -> await(wait, TestPlugins.job("a", 1)));

        done.get(10, TimeUnit.SECONDS); // a 10-minute wait that returns: nothing was missing
    }

    @Test
    void returnsAtOnceWhenAMissingTypeIsDeclaredByAFailedPlugin() throws Exception {
        RegistryPluginWait wait = new RegistryPluginWait(registry, JsonProvider.provider(), Duration.ofMinutes(10),
                type -> type.equals("boom-op") ? java.util.Optional.of("'boom-op' is provided by plugin boom 1.0.0, whose component "
                        + "failed to activate") : java.util.Optional.empty());

        CompletableFuture<Void> done = CompletableFuture.runAsync(() -> await(wait, "{\"operators\": [{\"type\": \"boom-op\"}]}"));

        done.get(10, TimeUnit.SECONDS); // a 10-minute wait that returns: the type will never come
    }

    @Test
    void returnsOnceAMissingTypeArrives() throws Exception {
        RegistryPluginWait wait = new RegistryPluginWait(registry, JsonProvider.provider(), Duration.ofMinutes(10));
        String spec = "{\"operators\": [{\"type\": \"late-sink\"}]}";

        CompletableFuture<Void> done = CompletableFuture.runAsync(() -> await(wait, spec));
        assertThat(done).isNotDone();
        registry.addSink(sink("late-sink"));

        done.get(10, TimeUnit.SECONDS);
    }

    private static void await(RegistryPluginWait wait, String spec) {
        try {
            wait.await(spec);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static SinkFactory sink(String type) {
        return new SinkFactory() {
            @Override
            public String type() {
                return type;
            }

            @Override
            public void validate(io.weir.api.plugin.PluginConfig config, io.weir.api.Schema input) {
            }

            @Override
            public io.weir.api.sink.TwoPhaseCommittingSink<?> create(io.weir.api.plugin.PluginConfig config, io.weir.api.Schema input) {
                throw new UnsupportedOperationException();
            }
        };
    }
}
