package io.weir.rest.node;

import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobVertex;
import io.weir.core.plugin.PluginBinding;
import io.weir.core.plugin.PluginOrigin;
import io.weir.core.plugin.PluginRegistry;
import io.weir.core.plugin.PluginResolutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Moves the node's running jobs between plugin versions as plugins come and go.
 *
 * <ul>
 * <li><b>Upgrade</b>: once the registry has been quiet for {@link #QUIET_MS} ms after a change, every RUNNING job
 *     whose operators would now resolve ({@code type}, the operator's {@code version} range, minus the versions it
 *     rolled back from) to another factory than the one it runs is stopped with a savepoint (no drain), its spec is
 *     parsed again against the registry (binding the new factories) and it is started again from that savepoint,
 *     with the same id. The old run has FINISHED before the new one is submitted: never two versions at once.</li>
 * <li><b>Removal</b> (also the first half of a bundle updated in place): when a factory a running job is built with
 *     is removed, the job is stopped with a savepoint <em>on the thread removing it</em>. In OSGi that is the thread
 *     stopping the bundle, and DS unbinds the factory before the bundle leaves STOPPING, so the bundle's classes are
 *     still loadable while the savepoint is taken (they stay so until the framework refreshes the bundle). If the
 *     savepoint fails (or takes over {@link #STOP_TIMEOUT_MS} ms) the job is suspended and keeps its latest
 *     checkpoint. The job is then SUSPENDED with a message naming the missing plugin, and resumes on its own at the
 *     first quiet registry in which its spec resolves again.</li>
 * <li><b>Probation and rollback</b>: a run started by a move is on probation until its first completed checkpoint
 *     (or its end, for a bounded job). A restart or failure in probation (an exception in {@code initializeState} or
 *     {@code open}, or any failure before that checkpoint) rolls it back: the run is cancelled, the versions it was
 *     moved to are excluded for this job, and it restarts from the same savepoint on the versions it ran before if
 *     they are still installed; else the job FAILS with a message naming the plugin, both versions and the savepoint
 *     to restart from. A rolled-back run is not on probation (never a loop); a version newer than the excluded one
 *     moves the job again.</li>
 * </ul>
 * <b>Cluster jobs</b> run by this node are moved the same way, except that they are stopped by a suspend instead of a
 * stop-with-savepoint and restored from their latest checkpoint in the cluster's completed store (the failover path):
 * the store stays the one restore point every member agrees on, and the run keeps the job's id, owner and epoch.
 * Jobs the cluster took back from this node are left alone ({@link NodeJobs#live}).
 * Each move is recorded in the job's {@link UpgradeHistory} with its downtime: from the end of the stop-with-savepoint
 * to the first row the new run sends to another task ({@link io.weir.core.engine.JobHandle#firstRecordTimeMillis}).
 *
 * <p>Threads: registry changes arrive on the thread making them; moves run on one thread of this class's own
 * ({@code weir-plugin-upgrades}), removals on the removing thread; {@code moves} serializes all of them. No lock of
 * this class is held while the registry is called (the registry calls its listeners outside its own lock).
 */
public final class PluginUpgrades implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PluginUpgrades.class);
    /**
     * The registry must be quiet this long before jobs are moved: an updated bundle is an unbind then a bind, and
     * a jar with several factories registers them one by one within a few ms (measured under SCR: the binds of one
     * bundle arrive within 1-5 ms of each other).
     */
    public static final long QUIET_MS = 50;
    /** Longest wait for a stop-with-savepoint (or, failing that, a suspend) of a job being moved, ms. */
    static final long STOP_TIMEOUT_MS = 30_000;
    /** How often a moved run is checked for its first row (to measure the downtime), ms. */
    static final long FIRST_RECORD_POLL_MS = 2;
    /** Longest time the downtime is waited for, ms (a job with no input then has no downtime figure). */
    static final long FIRST_RECORD_WAIT_MS = 120_000;
    /** Start of the message of a job parked because a plugin it uses was removed. */
    static final String WAITING = "waiting for plugin";

    private final NodeJobs jobs;
    private final PluginRegistry plugins;
    private final Path savepointDirectory;
    private final LongSupplier clock;
    private final BooleanSupplier frameworkStopping;
    private final ScheduledExecutorService executor;
    /** Serializes moves, parks and rollbacks (the move thread and removing threads). */
    private final ReentrantLock moves = new ReentrantLock();
    /** The scheduled quiet-period check; guarded by {@code this}. */
    private ScheduledFuture<?> pending;
    private final AutoCloseable registration;

    /**
     * @param jobs the node's jobs
     * @param plugins the registry to follow
     * @param savepointDirectory where the savepoints of moves go (in {@code upgrades/} under it), absolute
     * @param clock ms since the epoch
     * @param frameworkStopping true while the framework shuts down: plugins leaving then are not acted on (the node
     *        suspends its jobs itself)
     */
    public PluginUpgrades(NodeJobs jobs, PluginRegistry plugins, Path savepointDirectory, LongSupplier clock,
            BooleanSupplier frameworkStopping) {
        this.jobs = jobs;
        this.plugins = plugins;
        this.savepointDirectory = savepointDirectory.resolve("upgrades");
        this.clock = clock;
        this.frameworkStopping = frameworkStopping;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "weir-plugin-upgrades");
            t.setDaemon(true);
            return t;
        });
        this.registration = plugins.addListener(this::changed);
    }

    private void changed(PluginBinding binding, boolean added) {
        if (jobs.closed() || frameworkStopping.getAsBoolean()) {
            return;
        }
        if (!added) {
            parkJobsUsing(binding);
        }
        scheduleCheck();
    }

    /** (Re)starts the quiet period: the check runs {@link #QUIET_MS} ms after the last change. */
    private synchronized void scheduleCheck() {
        if (pending != null) {
            pending.cancel(false);
        }
        if (!executor.isShutdown()) {
            pending = executor.schedule(this::check, QUIET_MS, TimeUnit.MILLISECONDS);
        }
    }

    /** Stops (savepoint, else suspend) and parks every running job built with the removed factory. */
    private void parkJobsUsing(PluginBinding removed) {
        moves.lock(); // before listing: a move under way may be starting a run on the factory being removed
        try {
            for (NodeJob job : jobs.live()) {
                if (job.boundVertices().stream().noneMatch(v -> v.plugin().factory() == removed.factory())) {
                    continue;
                }
                {
                    LOG.info("Plugin {} was removed; stopping job {} ({}) with a savepoint while its classes are still loadable",
                            removed, job.name(), job.id());
                    long start = clock.getAsLong();
                    Path savepoint = stop(job);
                    String reason = WAITING + " " + removed + ": it was removed while the job used it; the job resumes from "
                            + (savepoint != null ? "savepoint " + savepoint : "its latest checkpoint")
                            + " when a version of '" + removed.type() + "' in " + rangeOf(job, removed)
                            + " is installed into plugins/";
                    int index = job.upgrades().add(new PluginUpgrade(start, describe(job.graph()), List.of(),
                            savepoint == null ? null : savepoint.toString(), -1, PluginUpgrade.Outcome.IN_PROGRESS, null));
                    jobs.park(job, reason, savepoint);
                    parked.put(job.id(), new Parked(index, clock.getAsLong(), savepoint, job.graph()));
                    LOG.warn("Job {} ({}) SUSPENDED: {}", job.name(), job.id(), reason);
                }
            }
        } finally {
            moves.unlock();
        }
    }

    /** A job parked by a removal: its move entry, when it stopped, the savepoint it stopped with and the graph it ran. */
    private record Parked(int upgradeIndex, long stoppedAt, Path savepoint, JobGraph graph) {
    }

    /** By job id; written under {@code moves}. */
    private final java.util.Map<String, Parked> parked = new java.util.concurrent.ConcurrentHashMap<>();

    /** @return the savepoint a parked job's record restores, or null for its latest checkpoint */
    private static Path savepointOf(NodeJob job) {
        String sp = job.record().overrides().get(io.weir.core.config.CheckpointingOptions.SAVEPOINT_PATH.key());
        return sp == null ? null : Path.of(sp);
    }

    private static String rangeOf(NodeJob job, PluginBinding b) {
        return job.boundVertices().stream().filter(v -> v.plugin().factory() == b.factory()).map(v -> v.versions().toString())
                .findFirst().orElse("any version");
    }

    /** The quiet-period check (move thread): resumes parked jobs that resolve again, moves running jobs that resolve differently. */
    void check() {
        if (jobs.closed()) {
            return;
        }
        moves.lock();
        try {
            for (NodeJob job : jobs.suspended()) {
                Parked p = parked.get(job.id());
                if (p == null && job.result() != null && String.valueOf(job.result().failure()).startsWith(WAITING)) {
                    // parked before the node restarted: no move entry, no graph of the old run to roll back to
                    p = new Parked(-1, clock.getAsLong(), savepointOf(job), job.graph());
                }
                if (p != null) {
                    resumeParked(job, p);
                }
            }
            for (NodeJob job : jobs.live()) {
                if (job.status() == JobStatus.RUNNING && !job.retired() && changedBindings(job)) {
                    move(job);
                }
            }
        } catch (RuntimeException e) {
            LOG.error("Checking the jobs after a plugin change failed: {}", e.toString(), e);
        } finally {
            moves.unlock();
        }
    }

    /** @return whether some operator of the job would now resolve to another factory than the one it runs */
    private boolean changedBindings(NodeJob job) {
        Set<PluginOrigin> excluded = job.upgrades().excluded();
        for (JobVertex v : job.boundVertices()) {
            Optional<PluginBinding> now;
            try {
                now = plugins.resolve(v.type(), v.versions(), excluded);
            } catch (PluginResolutionException e) {
                LOG.warn("Job {} ({}) stays on {}: {}", job.name(), job.id(), v.plugin(), e.getMessage());
                return false; // a conflict is never resolved silently, also not by moving a job
            }
            if (now.isPresent() && !now.get().equals(v.plugin())) {
                return true;
            }
        }
        return false;
    }

    private void resumeParked(NodeJob job, Parked p) {
        if (jobs.resolve(job, job.upgrades().excluded()).isEmpty()) {
            return; // still missing; a later change checks again
        }
        parked.remove(job.id());
        job.retire();
        startNext(job, p.graph(), p.savepoint(), p.stoppedAt(), p.upgradeIndex());
    }

    /** Stop-with-savepoint, then the next run on the newly resolved factories. */
    private void move(NodeJob job) {
        long start = clock.getAsLong();
        LOG.info("Job {} ({}): a plugin it uses has another version now; moving it: stop-with-savepoint, then restore on {}",
                job.name(), job.id(), jobs.resolve(job, job.upgrades().excluded()).map(PluginUpgrades::describe).orElse(List.of()));
        Path savepoint = stop(job);
        long stoppedAt = clock.getAsLong();
        int index = job.upgrades().add(new PluginUpgrade(start, describe(job.graph()), List.of(),
                savepoint == null ? null : savepoint.toString(), -1, PluginUpgrade.Outcome.IN_PROGRESS, null));
        startNext(job, job.graph(), savepoint, stoppedAt, index);
    }

    /**
     * Starts the run after {@code previous} stopped (it is retired) and watches its probation.
     *
     * @param before the graph the job ran before the stop (its versions are the ones to roll back to)
     */
    private void startNext(NodeJob previous, JobGraph before, Path savepoint, long stoppedAt, int index) {
        NodeJob next;
        try {
            next = jobs.nextRun(previous, savepoint, previous.upgrades().excluded());
        } catch (RuntimeException e) {
            String reason = WAITING + ": the job could not be started on the installed plugins (" + e.getMessage()
                    + "); it resumes from " + (savepoint != null ? "savepoint " + savepoint : "its latest checkpoint")
                    + " when the registry changes and its spec resolves";
            LOG.warn("Job {} ({}) SUSPENDED: {}", previous.name(), previous.id(), reason);
            NodeJob parkedJob = jobs.park(previous, reason, savepoint);
            parked.put(parkedJob.id(), new Parked(index, stoppedAt, savepoint, before));
            return;
        }
        List<String> to = describe(next.graph());
        previous.upgrades().update(index, u -> new PluginUpgrade(u.time(), u.from(), to, u.savepoint(), -1, u.outcome(), null));
        LOG.info("Job {} ({}) restored from {} on {}", next.name(), next.id(), savepoint != null ? savepoint : "its latest checkpoint", to);
        measureDowntime(next, stoppedAt, index);
        Probation probation = new Probation(before);
        next.firstCheckpoint().thenRun(() -> endProbation(next, index, probation));
        next.handle().result().thenAccept(r -> {
            if (r.status() != JobStatus.FAILED) {
                endProbation(next, index, probation); // a bounded run that ended without a checkpoint
            }
        });
        next.firstFailure().thenAccept(cause -> executor.execute(() -> rollback(next, probation, savepoint, index, cause)));
    }

    /**
     * The graph a moved run rolls back to while it is on probation. The watcher on the run's first failure stays
     * registered for as long as the run lives, so it must not keep that graph once the probation passed: the graph
     * binds the old version's factories, whose classes would keep the old bundle revision's class loader reachable
     * after the bundle was updated and refreshed (issue 8, "old versions are released"). Thread-safe.
     */
    private static final class Probation {
        /** Null once the probation passed. */
        private volatile JobGraph before;

        Probation(JobGraph before) {
            this.before = before;
        }

        /** @return the graph to roll back to, or null if the probation passed */
        JobGraph before() {
            return before;
        }

        void passed() {
            before = null;
        }
    }

    private void endProbation(NodeJob next, int index, Probation probation) {
        if (next.firstFailure().isDone()) {
            return;
        }
        probation.passed();
        next.upgrades().update(index, u -> u.outcome() == PluginUpgrade.Outcome.IN_PROGRESS
                ? u.ended(PluginUpgrade.Outcome.UPGRADED, "runs on " + u.to()) : u);
    }

    /**
     * The moved run failed in probation: back to the versions it ran before if they are installed, else FAILED.
     * Runs on the move thread.
     */
    private void rollback(NodeJob failed, Probation probation, Path savepoint, int index, Throwable cause) {
        JobGraph before = probation.before();
        if (before == null || failed.firstCheckpoint().isDone() && !failed.firstCheckpoint().isCompletedExceptionally()) {
            return; // passed probation before the failure: an ordinary failure, handled by the restart strategy
        }
        moves.lock();
        try {
            if (jobs.current(failed.id()) != failed || failed.retired()) {
                return;
            }
            doRollback(failed, before, savepoint, index, cause);
        } finally {
            moves.unlock();
        }
    }

    private void doRollback(NodeJob failed, JobGraph before, Path savepoint, int index, Throwable cause) {
        failed.retire();
        failed.handle().cancel();
        await(failed.handle().result(), "cancel");
        List<String> changed = new ArrayList<>();
        List<String> oldVersions = new ArrayList<>();
        for (JobVertex v : failed.boundVertices()) {
            PluginBinding old = binding(before, v.id());
            if (old != null && !old.equals(v.plugin())) {
                failed.upgrades().exclude(v.plugin().origin());
                changed.add("'" + v.type() + "' " + v.plugin().origin());
                oldVersions.add("'" + v.type() + "' " + old.origin());
            }
        }
        String why = String.valueOf(cause);
        String restartFrom = savepoint != null ? "savepoint " + savepoint : "its latest checkpoint";
        Optional<JobGraph> back = jobs.resolve(failed, failed.upgrades().excluded());
        boolean oldInstalled = back.isPresent() && back.get().vertices().stream().allMatch(v -> {
            PluginBinding old = binding(before, v.id());
            return old == null || old.origin().equals(v.plugin().origin());
        });
        if (oldInstalled) {
            try {
                NodeJob again = jobs.nextRun(failed, savepoint, failed.upgrades().excluded());
                String message = "plugin " + String.join(", ", changed) + " failed on restore (" + why + "); rolled back to "
                        + String.join(", ", oldVersions) + " from "
                        + restartFrom + "; the job stays on it until a newer version is installed";
                LOG.warn("Job {} ({}): {}", again.name(), again.id(), message);
                failed.upgrades().update(index, u -> u.outcome() == PluginUpgrade.Outcome.IN_PROGRESS
                        ? u.ended(PluginUpgrade.Outcome.ROLLED_BACK, message) : u);
                return;
            } catch (RuntimeException e) {
                why = why + "; the rollback failed too: " + e.getMessage();
            }
        }
        String message = "plugin " + String.join(", ", changed) + " failed on restore (" + why + ") and the version it ran before, "
                + String.join(", ", oldVersions)
                + ", is no longer installed" + "; install a working version and restart the job from " + restartFrom
                + (savepoint != null ? " (weir run --from-savepoint " + savepoint + ")" : "");
        LOG.error("Job {} ({}) FAILED: {}", failed.name(), failed.id(), message);
        jobs.fail(failed, message);
        failed.upgrades().update(index, u -> u.outcome() == PluginUpgrade.Outcome.IN_PROGRESS
                ? u.ended(PluginUpgrade.Outcome.FAILED, message) : u);
    }

    private static PluginBinding binding(JobGraph graph, String vertexId) {
        return graph.vertices().stream().filter(v -> v.id().equals(vertexId)).map(JobVertex::plugin).findFirst().orElse(null);
    }

    /**
     * Stops a running job with a savepoint (no drain); if that fails, suspends it (its latest checkpoint stays).
     *
     * @return the savepoint, or null if the job was suspended instead
     */
    private Path stop(NodeJob job) {
        job.retire();
        if (jobs.isClusterRun(job.id())) {
            // The cluster's completed store, not a savepoint, is what any member restores the job from; a
            // stop-with-savepoint would remove the job's checkpoints that store still names (docs/plugins.md).
            LOG.info("Job {} ({}) is a cluster job: suspending it; its next run restores its latest checkpoint in the "
                    + "cluster's completed store, under the same owner and epoch", job.name(), job.id());
            job.handle().suspend();
            await(job.handle().result(), "suspend");
            return null;
        }
        try {
            return job.handle().stopWithSavepoint(Optional.of(savepointDirectory), false)
                    .get(STOP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.warn("Job {} ({}): stop-with-savepoint failed ({}); suspending it, it resumes from its latest checkpoint",
                    job.name(), job.id(), e.getCause() != null ? e.getCause() : e);
        }
        job.handle().suspend();
        await(job.handle().result(), "suspend");
        return null;
    }

    private static void await(CompletableFuture<?> f, String what) {
        try {
            f.get(STOP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.warn("Waiting for a job to end after {} failed: {}", what, e.toString());
        }
    }

    /** Polls the new run for its first row sent, then records and logs the downtime. Move thread. */
    private void measureDowntime(NodeJob next, long stoppedAt, int index) {
        long deadline = clock.getAsLong() + FIRST_RECORD_WAIT_MS;
        java.util.concurrent.atomic.AtomicReference<ScheduledFuture<?>> self = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable poll = () -> {
            if (!done.get()) {
                long first = next.handle().firstRecordTimeMillis();
                if (first >= 0) {
                    long downtime = Math.max(0, first - stoppedAt);
                    next.upgrades().update(index, u -> u.withDowntime(downtime));
                    LOG.info("Job {} ({}) processes again on {}: downtime {} ms (stop-with-savepoint end to first row)",
                            next.name(), next.id(), describe(next.graph()), downtime);
                }
                done.set(first >= 0 || next.status().isTerminal() || clock.getAsLong() > deadline);
            }
            ScheduledFuture<?> f = self.get();
            if (done.get() && f != null) {
                f.cancel(false);
            }
        };
        self.set(executor.scheduleWithFixedDelay(poll, FIRST_RECORD_POLL_MS, FIRST_RECORD_POLL_MS, TimeUnit.MILLISECONDS));
    }

    /** @return per operator, {@code id: type bundle version} */
    static List<String> describe(JobGraph graph) {
        return graph.vertices().stream().filter(v -> v.plugin() != null)
                .map(v -> v.id() + ": " + v.type() + " " + v.plugin().origin()).toList();
    }

    /** Stops following the registry and the move thread (the node stopping). */
    @Override
    public void close() {
        try {
            registration.close();
        } catch (Exception e) {
            LOG.warn("Could not stop following the plugin registry: {}", e.toString());
        }
        executor.shutdownNow();
    }
}
