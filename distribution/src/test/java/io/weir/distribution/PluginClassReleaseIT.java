package io.weir.distribution;

import io.weir.launcher.FeatureDescriptor;
import io.weir.launcher.FelixHost;
import io.weir.launcher.NodeSettings;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;
import org.osgi.framework.wiring.BundleRevisions;
import org.osgi.framework.wiring.BundleWiring;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;

import static io.weir.distribution.WeirProcesses.freePort;
import static io.weir.distribution.WeirProcesses.writeFlightJob;
import static io.weir.distribution.WeirProcesses.writeFlights;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Old plugin versions are released (issue 8): after a running job moved from the shipped {@code operators-basic} to
 * 1.1 (its jar replaced in place under the node), no class of the old bundle revision stays reachable. The node's
 * framework runs in this JVM ({@link FelixHost} with the distribution's {@code node} feature, as {@code weir node}
 * boots it), so the test can hold a {@link WeakReference} to the old revision's class loader and see it cleared after
 * garbage collection once the update was refreshed (one revision left).
 *
 * <p>The job is held mid-stream by its source's {@code release-file} (it never reads past 2,000 records), so it is
 * RUNNING whatever the machine's speed while the plugin changes under it.
 */
class PluginClassReleaseIT {
    private static final Logger LOG = LoggerFactory.getLogger(PluginClassReleaseIT.class);
    private static final String BASIC = "io.weir.plugin.basic";
    private static final Duration WAIT = Duration.ofSeconds(90);
    /** Where a failing run leaves its heap dump (the old class loader still reachable), for a path-to-GC-root analysis. */
    private static final Path HEAP_DUMPS = Path.of("target/plugin-class-release").toAbsolutePath();

    @TempDir
    Path work;

    private FelixHost host;
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stopFramework() {
        if (host != null) {
            host.stop();
        }
    }

    @Test
    void theOldBundleRevisionsClassLoaderIsCollectedAfterAJobMovedToTheNewVersion() throws Exception {
        Path home = PluginUpgradeIT.privateDistribution(work);
        int port = freePort();
        String url = "http://127.0.0.1:" + port;
        Path data = work.resolve("data");
        Files.createDirectories(data);
        FeatureDescriptor node = FeatureDescriptor.read(home.resolve("conf/features/node.json"));
        Map<String, String> config = new LinkedHashMap<>(node.config());
        config.put("org.apache.felix.http.host", NodeSettings.HOST);
        config.put("org.osgi.service.http.port", String.valueOf(port));
        config.put("weir.node.data-dir", data.toString());
        // as in a weir process, whose class path holds no JSON-B provider: threads the framework starts (Jetty's) inherit
        // this context class loader, and with the test class path's yasson Jersey's JSON-B lookup fails ("not a subtype")
        Thread current = Thread.currentThread();
        ClassLoader testLoader = current.getContextClassLoader();
        current.setContextClassLoader(new HidingJsonbProviders(testLoader));
        try {
            host = FelixHost.start(home, new FeatureDescriptor(node.name(), node.description(), node.bundles(), config), false);
        } finally {
            current.setContextClassLoader(testLoader);
        }
        Path tokenFile = NodeSettings.tokenFile(data);
        await("node answers").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> Files.exists(tokenFile) && status(url + "/jobs") == 200);

        Path input = work.resolve("flights.jsonl");
        writeFlights(input, 20_000, 8_2026_12_02L);
        Path gate = work.resolve("release");
        Files.writeString(gate, "2000\n");
        Path job = PluginUpgradeIT.withReleaseFile(writeFlightJob("release.json", "release", input, work.resolve("cp"),
                work.resolve("out"), 0, 2, Map.of()), gate);
        HttpResponse<String> submitted = http.send(HttpRequest.newBuilder(URI.create(url + "/jobs?base-dir="
                        + URLEncoder.encode(work.toString(), StandardCharsets.UTF_8)))
                .header("Authorization", "Bearer " + Files.readString(tokenFile).strip())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofFile(job)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(submitted.statusCode()).as(submitted.body()).isBetween(200, 299);
        await("running on the shipped version").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> "RUNNING".equals(get(url + "/jobs/release").getString("state"))
                        && aggregateVersion(url).startsWith("0.1.0"));

        Bundle basic = Arrays.stream(host.context().getBundles()).filter(b -> BASIC.equals(b.getSymbolicName()))
                .findFirst().orElseThrow();
        WeakReference<ClassLoader> oldLoader = new OldLoader(basic.adapt(BundleWiring.class).getClassLoader());
        WeakReference<Class<?>> oldFactory = new WeakReference<>(
                oldLoader.get().loadClass("io.weir.plugin.basic.aggregate.KeyedAggregateFactory"));

        Path plugin = home.resolve("plugins").resolve(PluginUpgradeIT.SHIPPED_JAR);
        PluginUpgradeIT.atomicReplace(PluginUpgradeIT.exampleJar(), plugin);
        await("moved to 1.1.0").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> "1.1.0".equals(aggregateVersion(url)) && "RUNNING".equals(get(url + "/jobs/release").getString("state")));
        await("the update is refreshed: one revision left").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> basic.adapt(BundleRevisions.class).getRevisions().size() == 1);
        assertThat(basic.adapt(BundleWiring.class).getClassLoader()).isNotSameAs(oldLoader.get());

        try {
            await("the old revision's class loader is collected").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        System.gc();
                        return oldLoader.get() == null && oldFactory.get() == null;
                    });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            Path dump = HEAP_DUMPS.resolve("old-loader-" + System.currentTimeMillis() + ".hprof");
            Files.createDirectories(HEAP_DUMPS);
            java.lang.management.ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class)
                    .dumpHeap(dump.toString(), true);
            LOG.error("PluginClassReleaseIT: heap dump with the old class loader (the referent of the {} instance): {}",
                    OldLoader.class.getName(), dump);
            throw new AssertionError("the class loader of " + BASIC + " 0.1.0 is still reachable after the move to 1.1.0;"
                    + " threads whose context class loader it is: " + threadsHolding(oldLoader.get()), e);
        }
        LOG.info("PluginClassReleaseIT: the class loader of {} 0.1.0 was collected after the move to 1.1.0", BASIC);
    }

    /** The weak reference to the old revision's class loader: its own class, so a heap dump's analysis can find it. */
    private static final class OldLoader extends WeakReference<ClassLoader> {
        OldLoader(ClassLoader loader) {
            super(loader);
        }
    }

    /** The test's class loader without its {@code META-INF/services} entry for JSON-B providers (yasson's). */
    private static final class HidingJsonbProviders extends ClassLoader {
        private static final String HIDDEN = "META-INF/services/jakarta.json.bind.spi.JsonbProvider";

        HidingJsonbProviders(ClassLoader parent) {
            super(parent);
        }

        @Override
        public Enumeration<URL> getResources(String name) throws IOException {
            return HIDDEN.equals(name) ? Collections.emptyEnumeration() : super.getResources(name);
        }

        @Override
        public URL getResource(String name) {
            return HIDDEN.equals(name) ? null : super.getResource(name);
        }
    }

    /** @return names of the live threads whose context class loader is {@code loader} (one way a loader leaks) */
    private static java.util.List<String> threadsHolding(ClassLoader loader) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> loader != null && t.getContextClassLoader() == loader)
                .map(Thread::getName).sorted().toList();
    }

    private int status(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private JsonObject get(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("GET %s: %s", url, r.body()).isEqualTo(200);
        return WeirProcesses.json(r.body());
    }

    private String aggregateVersion(String url) throws IOException, InterruptedException {
        return get(url + "/jobs/release").getJsonArray("plugin-versions").getValuesAs(JsonObject.class).stream()
                .filter(p -> p.getString("operator").equals("per-origin")).map(p -> p.getString("version")).findFirst().orElse("");
    }
}
