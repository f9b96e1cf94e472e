package io.weir.runtime.plugin;

import io.weir.api.plugin.SinkFactory;
import io.weir.api.plugin.SourceFactory;
import io.weir.core.job.InvalidJobException;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.core.plugin.MapPluginRegistry;
import io.weir.core.plugin.PluginBinding;
import io.weir.core.plugin.PluginConflict;
import io.weir.core.plugin.PluginOrigin;
import io.weir.core.plugin.PluginVersion;
import io.weir.core.plugin.VersionRange;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A type served by several bundles and versions: jobs take the highest in their range, never a conflicting one. */
class VersionedPluginResolutionTest {
    private static final PluginOrigin V1 = origin("io.weir.plugins.basic", "1.0.0");
    private static final PluginOrigin V11 = origin("io.weir.plugins.basic", "1.1.0");
    private static final PluginOrigin V2 = origin("io.weir.plugins.basic", "2.0.0");

    @TempDir
    Path tmp;

    private final MapPluginRegistry registry = new MapPluginRegistry();
    private final JobSpecParser parser = new JobSpecParser(registry, JsonProvider.provider());

    VersionedPluginResolutionTest() {
        registry.addSource(shipped(SourceFactory.class, "datagen"));
    }

    private static PluginOrigin origin(String bundle, String version) {
        return new PluginOrigin(bundle, PluginVersion.parse(version));
    }

    /** @return a new instance of the shipped factory of {@code type} (a new object per call, as a new bundle revision gives) */
    private static <F> F shipped(Class<F> kind, String type) {
        for (F f : ServiceLoader.load(kind, VersionedPluginResolutionTest.class.getClassLoader())) {
            try {
                if (type.equals(f.getClass().getMethod("type").invoke(f))) {
                    @SuppressWarnings("unchecked")
                    F fresh = (F) f.getClass().getDeclaredConstructor().newInstance();
                    return fresh;
                }
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
        }
        throw new AssertionError("no shipped " + type);
    }

    private static String job(String version) {
        return "{\"name\": \"j\", \"operators\": [{\"id\": \"src\", \"type\": \"datagen\", \"config\": {\"limit\": 10}},"
                + " {\"id\": \"out\", \"type\": \"discard\", " + (version == null ? "" : "\"version\": \"" + version + "\", ")
                + "\"inputs\": [\"src\"]}]}";
    }

    private PluginOrigin boundOrigin(JobGraph g) {
        return g.vertex("out").plugin().origin();
    }

    @Test
    void withoutARangeTheHighestInstalledVersionIsTaken() throws Exception {
        SinkFactory v1 = shipped(SinkFactory.class, "discard");
        SinkFactory v11 = shipped(SinkFactory.class, "discard");
        registry.addSink(v11, V11);
        registry.addSink(v1, V1);
        JobGraph g = parser.parse(job(null), tmp, Map.of());
        assertThat(boundOrigin(g)).isEqualTo(V11);
        assertThat(g.vertex("out").plugin().factory()).isSameAs(v11);
        assertThat(g.vertex("out").versions()).isEqualTo(VersionRange.ANY);
        assertThat(registry.sink("discard")).containsSame(v11);
    }

    @Test
    void aRangeKeepsTheJobBelowItsCeiling() throws Exception {
        registry.addSink(shipped(SinkFactory.class, "discard"), V1);
        registry.addSink(shipped(SinkFactory.class, "discard"), V11);
        registry.addSink(shipped(SinkFactory.class, "discard"), V2);
        assertThat(boundOrigin(parser.parse(job("[1.0,2.0)"), tmp, Map.of()))).isEqualTo(V11);
        assertThat(boundOrigin(parser.parse(job("[1.0,1.1)"), tmp, Map.of()))).isEqualTo(V1);
        assertThat(boundOrigin(parser.parse(job("1.1"), tmp, Map.of()))).isEqualTo(V2);
        assertThat(boundOrigin(parser.parse(job("[1.0,2.0]"), tmp, Map.of()))).isEqualTo(V2);
    }

    @Test
    void excludedVersionsAreSkipped() throws Exception {
        registry.addSink(shipped(SinkFactory.class, "discard"), V1);
        registry.addSink(shipped(SinkFactory.class, "discard"), V11);
        assertThat(boundOrigin(parser.parse(job(null), tmp, Map.of(), Set.of(V11)))).isEqualTo(V1);
    }

    @Test
    void noVersionInRangeListsTheInstalledOnes() {
        registry.addSink(shipped(SinkFactory.class, "discard"), V1);
        assertThatThrownBy(() -> parser.parse(job("[2.0,3.0)"), tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("operators[1].version: no installed version of plugin type 'discard' is in [2.0.0,3.0.0); installed: "
                        + "[io.weir.plugins.basic 1.0.0]. Install a version in the range or change the range.");
    }

    @Test
    void aMalformedRangeIsNamed() {
        registry.addSink(shipped(SinkFactory.class, "discard"), V1);
        assertThatThrownBy(() -> parser.parse(job("[1.0;2.0)"), tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageStartingWith("operators[1].version '[1.0;2.0)' is not a version range; write e.g. \"[1.0,2.0)\"");
    }

    @Test
    void twoBundlesWithTheSameTypeAndVersionAreNeverChosenSilently() {
        registry.addSink(shipped(SinkFactory.class, "discard"), V1);
        registry.addSink(shipped(SinkFactory.class, "discard"), origin("com.example.evil", "1.0.0"));
        assertThatThrownBy(() -> parser.parse(job(null), tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("operators[1].type: plugin type 'discard' is served by 2 bundles "
                        + "[com.example.evil 1.0.0, io.weir.plugins.basic 1.0.0]; remove all but one of them from plugins/"
                        + " (a new version of a plugin keeps its Bundle-SymbolicName)");
        assertThat(registry.conflicts()).containsExactly(new PluginConflict("discard",
                List.of(origin("com.example.evil", "1.0.0"), V1)));
        assertThat(registry.sink("discard")).isEmpty();
        assertThat(registry.types()).contains("discard", "datagen");
    }

    @Test
    void anotherBundleDeclaringAnInstalledTypeDoesNotReplaceItWhateverItsVersion() {
        registry.addSink(shipped(SinkFactory.class, "discard"), V1);
        PluginOrigin other = origin("com.example.other", "9.0.0");
        SinkFactory intruder = shipped(SinkFactory.class, "discard");
        registry.addSink(intruder, other);

        assertThatThrownBy(() -> registry.resolve("discard", VersionRange.ANY, Set.of()))
                .isInstanceOf(io.weir.core.plugin.PluginResolutionException.class)
                .hasMessageContaining("com.example.other 9.0.0").hasMessageContaining("io.weir.plugins.basic 1.0.0");
        assertThat(registry.conflicts()).hasSize(1);

        // removing the intruder ends the conflict; a higher version of the same bundle is its next version
        registry.removeSink(intruder);
        registry.addSink(shipped(SinkFactory.class, "discard"), V11);
        assertThat(registry.conflicts()).isEmpty();
        assertThat(registry.resolve("discard", VersionRange.ANY, Set.of()).map(PluginBinding::origin)).contains(V11);
    }

    @Test
    void listenersHearAddsAndRemovalsOfTheSameObjects() {
        List<String> heard = new ArrayList<>();
        registry.addListener((b, added) -> heard.add((added ? "+" : "-") + b));
        SinkFactory f = shipped(SinkFactory.class, "discard");
        registry.addSink(f, V1);
        registry.removeSink(shipped(SinkFactory.class, "discard")); // another object: not registered, nothing happens
        registry.removeSink(f);
        assertThat(heard).containsExactly("+discard (io.weir.plugins.basic 1.0.0)", "-discard (io.weir.plugins.basic 1.0.0)");
        assertThat(registry.types()).doesNotContain("discard");
    }

    @Test
    void versionsAndRangesFollowOsgiOrdering() {
        assertThat(PluginVersion.parse("1.10").compareTo(PluginVersion.parse("1.9.9"))).isPositive();
        assertThat(PluginVersion.parse("1.1.0").compareTo(PluginVersion.parse("1.1.0.SNAPSHOT"))).isNegative();
        VersionRange r = VersionRange.parse("(1.0,2.0]");
        assertThat(r.includes(PluginVersion.parse("1.0"))).isFalse();
        assertThat(r.includes(PluginVersion.parse("1.0.1"))).isTrue();
        assertThat(r.includes(PluginVersion.parse("2.0"))).isTrue();
        assertThat(r.includes(PluginVersion.parse("2.0.1"))).isFalse();
    }
}
