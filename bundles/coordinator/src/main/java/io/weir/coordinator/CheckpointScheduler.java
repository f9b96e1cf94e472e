package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointException;
import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.coordination.CheckpointTriggerKind;
import io.weir.coordinator.CheckpointRequestDecider.Decision;
import io.weir.coordinator.CheckpointRequestDecider.Reject;
import io.weir.coordinator.CheckpointRequestDecider.Trigger;
import io.weir.coordinator.CheckpointRequestDecider.Wait;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

/**
 * Decides when checkpoints start (PROTOCOL.md §2 "request decider"): passes periodic ticks and
 * manual/final requests through the {@link CheckpointRequestDecider} and hands each request it lets
 * go to the trigger pipeline. A periodic tick rejected for the min-pause is retried when the pause
 * ends; a queued request waiting for the pause is retried by one timer task at the earliest due time.
 * Not thread-safe: checkpoint timer thread only.
 */
final class CheckpointScheduler {
    /** The coordinator's category, so log lines and their configuration stay as they were before the split. */
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCoordinator.class);

    private final String jobName;
    private final long intervalMs;
    private final GuardedTimer timer;
    /** Timer thread only. */
    private final CheckpointRequestDecider decider;
    private final IntSupplier pendingCount;
    private final Consumer<CheckpointRequest> trigger;
    /** Whether the periodic scheduler runs. Timer thread only. */
    private boolean periodicActive;
    /** Incremented on every start/stop so a stale periodic tick does nothing. Timer thread only. */
    private long periodicGeneration;
    /** The next periodic tick. Timer thread only. */
    private CheckpointTimer.Cancellable periodicTick;
    /** The retry of the request queue after a min-pause. Timer thread only. */
    private CheckpointTimer.Cancellable queueRetry;
    /** When {@link #queueRetry} is due, ms since the epoch; Long.MAX_VALUE if none. Timer thread only. */
    private long queueRetryAtMs = Long.MAX_VALUE;

    /**
     * @param jobName the job, for log lines and errors
     * @param intervalMs periodic trigger interval in ms, used once {@link #start()} is called
     * @param timer the coordinator's timer
     * @param decider max-concurrent, min-pause and the request queue
     * @param pendingCount checkpoints pending now (including ones whose master hooks still run)
     * @param trigger starts the checkpoint of a request the decider let go; called on the timer thread
     */
    CheckpointScheduler(String jobName, long intervalMs, GuardedTimer timer, CheckpointRequestDecider decider,
            IntSupplier pendingCount, Consumer<CheckpointRequest> trigger) {
        this.jobName = jobName;
        this.intervalMs = intervalMs;
        this.timer = Objects.requireNonNull(timer, "timer");
        this.decider = Objects.requireNonNull(decider, "decider");
        this.pendingCount = Objects.requireNonNull(pendingCount, "pendingCount");
        this.trigger = Objects.requireNonNull(trigger, "trigger");
    }

    /** Starts periodic ticks, the first {@code intervalMs} from now; does nothing if they run already. */
    void start() {
        if (!periodicActive) {
            periodicActive = true;
            periodicGeneration++;
            LOG.info("Starting the checkpoint scheduler of job {}: every {} ms", jobName, intervalMs);
            schedulePeriodicTick(intervalMs);
        }
    }

    /** Stops periodic ticks; a tick already submitted does nothing. Queued requests stay queued. */
    void stop() {
        if (periodicActive) {
            LOG.info("Stopping the checkpoint scheduler of job {}", jobName);
        }
        periodicActive = false;
        periodicGeneration++;
        if (periodicTick != null) {
            periodicTick.cancel();
            periodicTick = null;
        }
    }

    /** Triggers, queues or rejects (completing its result exceptionally) a new request. */
    void submit(CheckpointRequest request) {
        apply(decider.submit(request, pendingCount.getAsInt(), timer.now()));
    }

    /** Triggers queued manual/final requests while the decider allows; call when a checkpoint finished. */
    void pollQueue() {
        while (true) {
            Decision d = decider.poll(pendingCount.getAsInt(), timer.now());
            apply(d);
            if (!(d instanceof Trigger)) {
                return;
            }
        }
    }

    /** Starts the min-pause: a checkpoint completed at {@code completionMs} (ms since the epoch). */
    void checkpointCompleted(long completionMs) {
        decider.checkpointCompleted(completionMs);
    }

    /** Removes and returns every queued request, oldest first (on shutdown). */
    List<CheckpointRequest> drainQueue() {
        return decider.drainQueue();
    }

    private void schedulePeriodicTick(long delayMs) {
        long generation = periodicGeneration;
        periodicTick = timer.schedule("a periodic checkpoint trigger", () -> onPeriodicTick(generation), delayMs);
    }

    private void onPeriodicTick(long generation) {
        if (!periodicActive || generation != periodicGeneration) {
            return;
        }
        long now = timer.now();
        Decision decision = decider.submit(new CheckpointRequest(CheckpointTriggerKind.PERIODIC, now,
                new CompletableFuture<>()), pendingCount.getAsInt(), now);
        long nextDelay = intervalMs;
        if (decision instanceof Reject r && r.reason() == CheckpointFailureReason.MINIMUM_TIME_BETWEEN_CHECKPOINTS) {
            // Trigger as soon as the pause is over instead of waiting for the next interval.
            nextDelay = Math.max(1, decider.pauseEnd() - now);
        }
        schedulePeriodicTick(nextDelay);
        apply(decision);
    }

    /** Carries out a decision of the decider. */
    private void apply(Decision decision) {
        if (decision instanceof Trigger t) {
            trigger.accept(t.request());
        } else if (decision instanceof Reject r) {
            CheckpointRequest req = r.request();
            if (req.isPeriodic()) {
                LOG.debug("Skipping periodic checkpoint of job {}: {}", jobName, r.reason().message());
            } else {
                LOG.info("Rejecting {} checkpoint request of job {}: {}", req.kind(), jobName, r.reason().message());
            }
            req.result().completeExceptionally(new CheckpointException(r.reason(), "(job " + jobName + ")", null));
        } else if (decision instanceof Wait w && w.retryAtMs() != CheckpointRequestDecider.ON_CHECKPOINT_FINISHED) {
            scheduleQueueRetry(w.retryAtMs());
        }
    }

    private void scheduleQueueRetry(long atMs) {
        if (queueRetry != null && queueRetryAtMs <= atMs) {
            return;
        }
        if (queueRetry != null) {
            queueRetry.cancel();
        }
        queueRetryAtMs = atMs;
        queueRetry = timer.schedule("retrying queued checkpoint requests", () -> {
            queueRetry = null;
            queueRetryAtMs = Long.MAX_VALUE;
            pollQueue();
        }, Math.max(0, atMs - timer.now()));
    }
}
