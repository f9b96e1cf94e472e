package io.weir.console.metrics;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.eclipse.microprofile.metrics.Histogram;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-job MicroProfile metrics (application scope, {@code /metrics?scope=application}), tagged {@code node} and
 * {@code job}: {@code weir_checkpoint_duration} (histogram of completed checkpoints' end-to-end durations, ms),
 * {@code weir_checkpoint_size} (the last completed checkpoint's state, bytes), {@code weir_checkpoint_failures} (failed
 * checkpoints since the node started the job), {@code weir_job_restarts}, {@code weir_job_records_per_second} (rows sent by
 * the job's sources). Fed by the poller thread; gauges are read by the metrics endpoint's threads, hence the volatile
 * fields of {@link Gauges}.
 */
@ApplicationScoped
public class JobMetrics {
    @Inject
    MetricRegistry registry;

    /** node/job → its gauges' values; written by the poller thread only. */
    private final Map<String, Gauges> jobs = new ConcurrentHashMap<>();

    /** The values the gauges of one job read. */
    static final class Gauges {
        final Histogram durations;
        volatile long lastSeenCheckpoint = -1;
        volatile long size;
        volatile long failures;
        volatile long restarts;
        volatile double recordsPerSecond;

        Gauges(Histogram durations) {
            this.durations = durations;
        }
    }

    /**
     * Records what one poll saw of a job: every completed checkpoint newer than the last one recorded goes into the
     * histogram (oldest first), the gauges take the new values.
     *
     * @param node the node's name
     * @param job the job's name
     * @param checkpoints the node's {@code GET /jobs/:id/checkpoints} answer
     * @param restarts the job's restarts
     * @param recordsPerSecond rows per second sent by its sources
     */
    public void update(String node, String job, JsonObject checkpoints, long restarts, double recordsPerSecond) {
        Gauges g = jobs.computeIfAbsent(node + "/" + job, k -> register(node, job));
        var history = checkpoints.getJsonArray("history");
        long newest = g.lastSeenCheckpoint;
        for (int i = history.size() - 1; i >= 0; i--) {
            JsonObject c = history.getJsonObject(i);
            long id = c.getJsonNumber("id").longValue();
            if ("COMPLETED".equals(c.getString("status", "")) && id > g.lastSeenCheckpoint) {
                g.durations.update(c.getJsonNumber("end_to_end_duration").longValue());
                g.size = c.getJsonNumber("state_size").longValue();
                newest = Math.max(newest, id);
            }
        }
        g.lastSeenCheckpoint = newest;
        JsonValue counts = checkpoints.get("counts");
        if (counts instanceof JsonObject o && o.getJsonNumber("failed") != null) {
            g.failures = o.getJsonNumber("failed").longValue();
        }
        g.restarts = restarts;
        g.recordsPerSecond = recordsPerSecond;
    }

    private Gauges register(String node, String job) {
        Tag[] tags = {new Tag("node", node), new Tag("job", job)};
        Histogram h = registry.histogram(Metadata.builder().withName("weir_checkpoint_duration").withUnit(MetricUnits.MILLISECONDS)
                .withDescription("End-to-end duration of the job's completed checkpoints").build(), tags);
        Gauges g = new Gauges(h);
        registry.gauge(Metadata.builder().withName("weir_checkpoint_size").withUnit(MetricUnits.BYTES)
                .withDescription("State size of the job's last completed checkpoint").build(), g, x -> x.size, tags);
        registry.gauge(Metadata.builder().withName("weir_checkpoint_failures")
                .withDescription("Failed checkpoints since the node started the job").build(), g, x -> x.failures, tags);
        registry.gauge(Metadata.builder().withName("weir_job_restarts")
                .withDescription("Restarts of the job's tasks").build(), g, x -> x.restarts, tags);
        registry.gauge(Metadata.builder().withName("weir_job_records_per_second")
                .withDescription("Rows per second sent by the job's sources, between the console's last two polls").build(),
                g, x -> x.recordsPerSecond, tags);
        return g;
    }
}
