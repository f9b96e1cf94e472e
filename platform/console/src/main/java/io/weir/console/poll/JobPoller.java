package io.weir.console.poll;

import io.weir.console.ConsoleOptions;
import io.weir.console.metrics.JobMetrics;
import io.weir.console.node.NodeClient;
import io.weir.console.node.NodeErrorException;
import io.weir.console.node.NodeRegistry;
import io.weir.console.node.NodeUnavailableException;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.eclipse.microprofile.config.Config;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Polls every configured node every {@value ConsoleOptions#POLL_INTERVAL_MS} ms for its jobs, publishes what it saw as an
 * immutable {@link Snapshot} (the jobs page, health and metrics read it), computes records/s from two samples and feeds
 * new completed checkpoints to {@link JobMetrics}. A node that does not answer is marked down; the others are still
 * polled.
 *
 * <p>Thread confinement: {@link #pollOnce()} runs on the scheduler's single repeating task only (fixed delay, never two
 * at once), which owns {@link #previous} and {@link #intervals}; {@link #snapshot} is volatile and only replaced.
 */
@ApplicationScoped
public class JobPoller {
    private static final Logger LOG = LoggerFactory.getLogger(JobPoller.class);

    @Inject
    NodeRegistry nodes;
    @Inject
    JobMetrics metrics;
    @Inject
    Config config;
    @Resource
    ManagedScheduledExecutorService scheduler;

    private volatile Snapshot snapshot = Snapshot.EMPTY;
    private ScheduledFuture<?> task;
    /** Poller thread only: node/job id → (time, rows sent by its sources) of the previous poll. */
    private final Map<String, long[]> previous = new HashMap<>();
    /** Poller thread only: node/job id → checkpoint interval (ms), read once per job. */
    private final Map<String, Long> intervals = new HashMap<>();
    /** Poller thread only: nodes seen down at the last poll, to log each change once. */
    private final Map<String, Boolean> wasUp = new HashMap<>();

    /** Starts polling when the application starts. */
    void start(@Observes @Initialized(ApplicationScoped.class) Object started) {
        long period = config.getOptionalValue(ConsoleOptions.POLL_INTERVAL_MS, Long.class).orElse(ConsoleOptions.POLL_INTERVAL_MS_DEFAULT);
        if (period < 100) {
            throw new IllegalArgumentException(ConsoleOptions.POLL_INTERVAL_MS + " must be >= 100 ms, got " + period);
        }
        task = scheduler.scheduleWithFixedDelay(this::pollSafely, 0, period, TimeUnit.MILLISECONDS);
    }

    @PreDestroy
    void stop() {
        if (task != null) {
            task.cancel(true);
        }
    }

    /** @return what the newest poll saw; {@link Snapshot#EMPTY} before the first one ended */
    public Snapshot snapshot() {
        return snapshot;
    }

    private void pollSafely() {
        try {
            pollOnce();
        } catch (RuntimeException e) {
            // a bug must not end the repeating task
            LOG.error("polling the nodes failed", e);
        }
    }

    void pollOnce() {
        List<NodeStatus> statuses = new ArrayList<>();
        List<JobListing.Answer> answers = new ArrayList<>();
        Map<String, NodeClient> byName = new HashMap<>();
        for (NodeClient node : nodes.all()) {
            long now = System.currentTimeMillis();
            byName.put(node.name(), node);
            try {
                JsonObject overview = node.call(api -> api.overview());
                JsonObject jobs = node.call(api -> api.jobsOverview());
                answers.add(new JobListing.Answer(node.name(), jobs.getJsonArray("jobs")));
                statuses.add(new NodeStatus(node.name(), node.url().toString(), true, null, overview.getString("weir-version", null), now));
                logChange(node, true, null);
            } catch (NodeUnavailableException | NodeErrorException e) {
                answers.add(new JobListing.Answer(node.name(), null));
                statuses.add(new NodeStatus(node.name(), node.url().toString(), false, e.getMessage(), null, now));
                logChange(node, false, e.getMessage());
            }
        }
        // rows only after every node answered: a cluster job is shown once, through the first member that listed it
        List<JobRow> rows = new ArrayList<>();
        for (JobListing.Listed listed : JobListing.merge(answers)) {
            rows.add(row(byName.get(listed.node()), listed.job()));
        }
        snapshot = new Snapshot(System.currentTimeMillis(), statuses, rows);
    }

    private void logChange(NodeClient node, boolean up, String error) {
        Boolean before = wasUp.put(node.name(), up);
        if (before == null || before != up) {
            if (up) {
                LOG.info("node '{}' at {} is up", node.name(), node.url());
            } else {
                LOG.warn("node '{}' at {} is down: {}", node.name(), node.url(), error);
            }
        }
    }

    private JobRow row(NodeClient node, JsonObject overview) {
        String id = overview.getString("jid");
        String name = overview.getString("name", id);
        String state = overview.getString("state", "UNKNOWN");
        String key = node.name() + "/" + id;
        MDC.put("job", name);
        try {
            JsonObject last = overview.getJsonObject("last-checkpoint");
            boolean active = !("FINISHED".equals(state) || "FAILED".equals(state) || "CANCELED".equals(state));
            Live live = Live.NONE;
            if (active) {
                try {
                    live = live(node, id, name, key, last);
                } catch (NodeErrorException | NodeUnavailableException e) {
                    // the job ended, was forgotten or is moving between cluster members, or the node went away between
                    // the requests: show what the overview said
                    LOG.debug("job {} on node '{}' changed while polled: {}", id, node.name(), e.getMessage());
                }
            }
            return new JobRow(node.name(), id, name, state, overview.getJsonNumber("start-time").longValue(),
                    overview.getJsonNumber("duration").longValue(), live.parallelism(),
                    last == null ? null : last.getJsonNumber("id").longValue(), live.lastCheckpointAgeMs(),
                    last == null ? null : last.getJsonNumber("end_to_end_duration").longValue(),
                    last == null ? null : last.getJsonNumber("state_size").longValue(),
                    live.recordsPerSecond(), live.restarts(), live.failedCheckpoints(), intervals.getOrDefault(key, -1L),
                    overview.containsKey("node") ? overview.getString("node", "") : null);
        } finally {
            MDC.remove("job");
        }
    }

    /** What only a job that has not ended has: parallelism, restarts, failed checkpoints, rate, checkpoint age. */
    private record Live(int parallelism, long restarts, long failedCheckpoints, double recordsPerSecond, Long lastCheckpointAgeMs) {
        static final Live NONE = new Live(0, 0, 0, 0, null);
    }

    /** Reads the job, its checkpoints and (once) its interval; feeds the metrics. */
    private Live live(NodeClient node, String id, String name, String key, JsonObject last) {
        JsonObject job = node.call(api -> api.job(id));
        int parallelism = 0;
        long sent = 0;
        for (JsonValue v : job.getJsonArray("vertices")) {
            JsonObject vertex = v.asJsonObject();
            parallelism = Math.max(parallelism, vertex.getInt("parallelism", 0));
            JsonObject m = vertex.getJsonObject("metrics");
            if ("source".equals(vertex.getString("kind", "")) && m != null && m.getJsonNumber("write-records") != null) {
                sent += m.getJsonNumber("write-records").longValue();
            }
        }
        long restarts = job.getJsonNumber("restarts") == null ? 0 : job.getJsonNumber("restarts").longValue();
        // the node's clock for ages: the console may run elsewhere
        long nodeNow = job.getJsonNumber("now") == null ? System.currentTimeMillis() : job.getJsonNumber("now").longValue();
        double rps = rate(key, nodeNow, sent);
        Long age = last == null ? null : Math.max(0, nodeNow - last.getJsonNumber("latest_ack_timestamp").longValue());
        JsonObject checkpoints = node.call(api -> api.checkpoints(id));
        long failed = checkpoints.getJsonObject("counts").getJsonNumber("failed").longValue();
        if (!intervals.containsKey(key)) {
            intervals.put(key, node.call(api -> api.checkpointConfig(id)).getJsonNumber("interval").longValue());
        }
        metrics.update(node.name(), name, checkpoints, restarts, rps);
        return new Live(parallelism, restarts, failed, rps, age);
    }

    /** Rows per second since the previous poll of this job; 0 on the first poll or after the counter went back (a restart). */
    private double rate(String key, long now, long sent) {
        long[] before = previous.put(key, new long[] {now, sent});
        if (before == null || now <= before[0] || sent < before[1]) {
            return 0;
        }
        return (sent - before[1]) * 1000.0 / (now - before[0]);
    }
}
