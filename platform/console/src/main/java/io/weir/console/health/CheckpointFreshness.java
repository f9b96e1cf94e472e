package io.weir.console.health;

import io.weir.console.ConsoleOptions;
import io.weir.console.poll.JobPoller;
import io.weir.console.poll.JobRow;
import io.weir.console.poll.Snapshot;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness check {@code checkpoints}: DOWN when a running job with periodic checkpoints has not completed one for more
 * than {@value ConsoleOptions#STALE_INTERVALS} (default 3) intervals — counted from its start when it has none yet. Data:
 * {@code <node>/<job>} → {@code ok}, or the age and the interval. Reads the poller's newest snapshot.
 */
@Readiness
@ApplicationScoped
public class CheckpointFreshness implements HealthCheck {
    @Inject
    JobPoller poller;
    @Inject
    Config config;

    @Override
    public HealthCheckResponse call() {
        int n = config.getOptionalValue(ConsoleOptions.STALE_INTERVALS, Integer.class).orElse(ConsoleOptions.STALE_INTERVALS_DEFAULT);
        Snapshot s = poller.snapshot();
        HealthCheckResponseBuilder b = HealthCheckResponse.named("checkpoints").up();
        for (JobRow job : s.jobs()) {
            if (!"RUNNING".equals(job.state()) || job.checkpointIntervalMs() <= 0) {
                continue;
            }
            long age = job.lastCheckpointAgeMs() != null ? job.lastCheckpointAgeMs() : job.uptimeMs();
            String key = job.node() + "/" + job.name();
            if (age > (long) n * job.checkpointIntervalMs()) {
                b.down().withData(key, "last completed checkpoint " + age + " ms ago"
                        + (job.lastCheckpointId() == null ? " (none yet, counted from the start)" : " (id " + job.lastCheckpointId() + ")")
                        + ", more than " + n + " intervals of " + job.checkpointIntervalMs() + " ms");
            } else {
                b.withData(key, "ok");
            }
        }
        return b.build();
    }
}
