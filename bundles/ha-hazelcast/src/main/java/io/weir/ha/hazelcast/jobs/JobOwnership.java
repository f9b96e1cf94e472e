package io.weir.ha.hazelcast.jobs;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import io.weir.ha.hazelcast.checkpoint.HazelcastCheckpointRecoveryFactory;
import io.weir.ha.hazelcast.member.ClusterMember;
import io.weir.ha.hazelcast.member.ClusterSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * This node's side of job ownership (docs/ha.md): runs the jobs the job store assigns to it, renews its lease on
 * each, stops a run BEFORE anyone can take the job over when it cannot renew, and, on the leader (the oldest
 * member), assigns jobs without a live owner to the least loaded members.
 *
 * <p>Lease and clocks: a run holds its lease while the job store names this member as owner under the run's epoch.
 * Another member can take the job only after this member left the cluster view of the majority, which takes at least
 * {@code max-no-heartbeat} seconds of silence. The owner renews every {@value #TICK_MS} ms (a read on the job's
 * primary copy) and stops a run whose last successful renewal started more than {@code max-no-heartbeat − 1} s ago,
 * measured on its own monotonic clock; so the assumptions are clock <em>rates</em> agreeing within that 1 s margin
 * and a renewal reaching the majority's copy whenever heartbeats do. A paused process (GC, {@code kill -STOP}) cannot
 * stop anything: fencing covers that case (every counter and store write carries the epoch). On waking, its view may be
 * stale for a moment, so a lapsed lease is never renewed ({@link JobLeases#extend}) and it takes no job for a while
 * ({@link TakeoverHold}).
 *
 * <p>Split-brain: a member that sees fewer than a majority of the configured members stops all its runs and assigns
 * nothing.
 *
 * <p>Threads: {@link #loop} (reconciliation, starts, leader work; makes cluster calls), {@link #renewer} (asynchronous
 * renewals) and {@link #watchdog} (deadline and quorum checks; no cluster calls, so a hung cluster call never delays a
 * stop). {@link #runs} is a
 * concurrent map; a run's renewal time is volatile.
 */
public final class JobOwnership implements AutoCloseable {
    /** Period of renewals and reconciliation, ms. */
    static final long TICK_MS = 250;
    /** Period of the watchdog, ms. */
    static final long WATCHDOG_MS = 100;
    /** Parse failures of an owned job (e.g. its plugin not installed yet) tolerated before it is FAILED, ~10 s. */
    static final int MAX_START_FAILURES = 40;

    private static final Logger LOG = LoggerFactory.getLogger(JobOwnership.class);

    private final ClusterSettings settings;
    private final ClusterMember member;
    private final JobLeases leases;
    private final HazelcastCheckpointRecoveryFactory recovery;
    private final JobStarter starter;
    private final LongSupplier nanos;
    private final long stopAfterNanos;
    private final Map<String, LocalRun> runs = new ConcurrentHashMap<>();
    /** Loop thread only. */
    private final Map<String, Integer> startFailures = new ConcurrentHashMap<>();
    /**
     * Job name → the epoch of a run this node stopped while the store still gives the job to it: it is started again
     * only under a new epoch (reclaimed), so the stopped run's late writes are refused and never mixed with the new run's.
     */
    private final Map<String, Long> abandoned = new ConcurrentHashMap<>();
    private final ScheduledExecutorService loop = daemon("weir-cluster-jobs");
    private final ScheduledExecutorService watchdog = daemon("weir-cluster-lease-watchdog");
    /** Sends the renewals (asynchronous calls), so a slow start of a run on {@link #loop} never delays them. */
    private final ScheduledExecutorService renewer = daemon("weir-cluster-lease-renewer");
    /** Loop thread only: whether the last tick saw a majority (for logging changes once). */
    private boolean quorate = true;
    /** No starts, reclaims or leader assignments right after this node may have been cut off (paused). */
    private final TakeoverHold hold;
    /**
     * How long a hold lasts, s: {@code max-no-heartbeat} (the others remove a silent member; the woken one, hearing from
     * nobody, suspects them as long after its restart of the heartbeat clock), plus one heartbeat period (its next check),
     * plus 1 s margin: 5 s by default.
     */
    private final long holdSeconds;
    /** Loop thread only: when the previous tick ended ({@link #nanos}), 0 before the first. */
    private long lastTickEnd;
    /** Watchdog thread only: when the previous check ended ({@link #nanos}), 0 before the first. */
    private long lastWatchEnd;
    /** Loop thread only: whether the last tick was held (for logging changes once). */
    private boolean wasHeld;

    /** This node's run of one job under one epoch. */
    private static final class LocalRun {
        final String name;
        final long epoch;
        volatile JobHandle handle;
        /** When the last successful renewal was sent ({@link #nanos}). */
        volatile long renewedAt;

        LocalRun(String name, long epoch, long now) {
            this.name = name;
            this.epoch = epoch;
            this.renewedAt = now;
        }
    }

    /**
     * @param member this node's member (the loops start once it is up)
     * @param leases the leases the checkpoint factory reads
     * @param recovery removes a terminal job's counter and store
     * @param starter starts runs on the local engine
     * @param nanos monotonic clock, ns
     */
    public JobOwnership(ClusterMember member, JobLeases leases, HazelcastCheckpointRecoveryFactory recovery, JobStarter starter,
            LongSupplier nanos) {
        this.settings = member.settings();
        this.member = member;
        this.leases = leases;
        this.recovery = recovery;
        this.starter = starter;
        this.nanos = nanos;
        this.stopAfterNanos = TimeUnit.SECONDS.toNanos(settings.maxNoHeartbeatSeconds() - 1);
        this.holdSeconds = settings.maxNoHeartbeatSeconds() + settings.heartbeatSeconds() + 1;
        // a pause of P is heard as silence of up to P + one heartbeat period; the others remove a member after
        // max-no-heartbeat of silence: a gap from half a second below max-no-heartbeat - heartbeat on may have cost the
        // membership (1.5 s by default; gaps of 1.1-1.4 s are common at load 50 on 2 cores and cost nothing)
        long pauseGapMs = TimeUnit.SECONDS.toMillis(settings.maxNoHeartbeatSeconds() - settings.heartbeatSeconds()) - 500;
        this.hold = new TakeoverHold(nanos, TimeUnit.MILLISECONDS.toNanos(Math.max(500, pauseGapMs)),
                TimeUnit.SECONDS.toNanos(holdSeconds));
    }

    /** Starts the loops once the member is up. */
    public void start() {
        member.started().thenAccept(hz -> {
            loop.scheduleWithFixedDelay(() -> guarded("tick", () -> tick(hz)), 0, TICK_MS, TimeUnit.MILLISECONDS);
            watchdog.scheduleWithFixedDelay(() -> guarded("watchdog", () -> watch(hz)), WATCHDOG_MS, WATCHDOG_MS,
                    TimeUnit.MILLISECONDS);
            renewer.scheduleWithFixedDelay(() -> guarded("renewal", () -> renew(hz)), TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
        });
    }

    /** @return the names of the jobs this node runs now */
    public List<String> localJobs() {
        return new ArrayList<>(runs.keySet());
    }

    private void watch(HazelcastInstance hz) {
        long now = nanos.getAsLong();
        if (lastWatchEnd != 0 && hold.sawGap(now - lastWatchEnd - TimeUnit.MILLISECONDS.toNanos(WATCHDOG_MS))) {
            LOG.warn("This node did not run for {} ms (paused?): it starts, reclaims and assigns no job for {} s, until the"
                    + " others have removed it if they did", TimeUnit.NANOSECONDS.toMillis(now - lastWatchEnd), holdSeconds);
        }
        try {
            check(hz, now);
        } finally {
            lastWatchEnd = nanos.getAsLong();
        }
    }

    private void check(HazelcastInstance hz, long now) {
        int seen = hz.getCluster().getMembers().size();
        for (LocalRun run : runs.values()) {
            if (seen < settings.quorum()) {
                stop(run, "this node sees " + seen + " of " + settings.members().size() + " members, fewer than a majority ("
                        + settings.quorum() + ")", false);
            } else if (now - run.renewedAt > stopAfterNanos) {
                stop(run, "its lease could not be renewed for " + TimeUnit.NANOSECONDS.toMillis(now - run.renewedAt)
                        + " ms (another node may take the job after " + settings.maxNoHeartbeatSeconds() + " s)", false);
            }
        }
    }

    /** Renewer thread: one asynchronous RENEW per run; a refusal stops the run, a success moves its deadline. */
    private void renew(HazelcastInstance hz) {
        String self = hz.getCluster().getLocalMember().getUuid().toString();
        ClusterJobStore store = new ClusterJobStore(hz);
        for (LocalRun run : runs.values()) {
            long sent = nanos.getAsLong();
            store.renewAsync(run.name, self, run.epoch).whenComplete((result, error) -> {
                if (error != null) {
                    LOG.debug("Renewing the lease of job {} (epoch {}) failed: {}", run.name, run.epoch, error.toString());
                } else if (result.ok()) {
                    if (leases.extend(run.name, run.epoch, sent + stopAfterNanos)) {
                        run.renewedAt = Math.max(run.renewedAt, sent);
                    } else {
                        // lapsed before the answer (e.g. paused): a stale view may have answered; the watchdog stops the run
                        LOG.warn("Job {} (epoch {}): a renewal answered after this node's lease had lapsed; not renewed", run.name,
                                run.epoch);
                    }
                } else {
                    stop(run, "the job store no longer gives it to this node under epoch " + run.epoch + " (now: "
                            + describe(result.job()) + ")", result.job() != null && result.job().status() == ClusterJobStatus.CANCELED);
                }
            });
        }
    }

    private void tick(HazelcastInstance hz) {
        long start = nanos.getAsLong();
        if (lastTickEnd != 0 && hold.sawGap(start - lastTickEnd - TimeUnit.MILLISECONDS.toNanos(TICK_MS))) {
            LOG.warn("This node's job loop did not run for {} ms (paused?): it starts, reclaims and assigns no job for {} s",
                    TimeUnit.NANOSECONDS.toMillis(start - lastTickEnd), holdSeconds);
        }
        try {
            reconcile(hz);
        } finally {
            lastTickEnd = nanos.getAsLong();
        }
    }

    private void reconcile(HazelcastInstance hz) {
        List<Member> members = new ArrayList<>(hz.getCluster().getMembers());
        boolean majority = members.size() >= settings.quorum();
        if (majority != quorate) {
            LOG.warn(majority ? "This node sees {} of {} members again: it runs and assigns jobs"
                    : "This node sees only {} of {} members (a minority): it stops its jobs and takes over none",
                    members.size(), settings.members().size());
            quorate = majority;
        }
        if (!majority) {
            return; // the watchdog stops the runs
        }
        boolean held = hold.held();
        if (held != wasHeld) {
            LOG.info(held ? "Taking no job while this node may still be cut off (after a pause)"
                    : "This node takes jobs again");
            wasHeld = held;
        }
        String self = hz.getCluster().getLocalMember().getUuid().toString();
        ClusterJobStore store = new ClusterJobStore(hz);
        List<ClusterJob> jobs = store.all();
        for (ClusterJob job : jobs) {
            LocalRun run = runs.get(job.name());
            boolean mine = job.status() == ClusterJobStatus.RUNNING && self.equals(job.owner());
            if (run == null && (held || hold.held())) {
                continue; // stopping is always safe; taking is not, on a view that may be stale
            }
            if (mine && run == null && abandoned.getOrDefault(job.name(), -1L) == job.epoch()) {
                if (store.assign(job.name(), job.epoch(), self, settings.nodeUrl())) {
                    LOG.info("Job {} reclaimed by this node under epoch {} (its run under epoch {} was stopped)", job.name(),
                            job.epoch() + 1, job.epoch());
                }
            } else if (mine && run == null) {
                start(store, self, job);
            } else if (run != null && (!mine || job.epoch() != run.epoch)) {
                stop(run, "the job store says " + describe(job), job.status() == ClusterJobStatus.CANCELED);
            }
        }
        if (members.get(0).localMember() && !held && !hold.held()) {
            List<MemberRef> refs = members.stream()
                    .map(m -> new MemberRef(m.getUuid().toString(), String.valueOf(m.getAttribute(ClusterMember.URL_ATTRIBUTE))))
                    .toList();
            for (Assignments.Assignment a : Assignments.plan(jobs, refs)) {
                if (store.assign(a.job().name(), a.job().epoch(), a.to().id(), a.to().url())) {
                    LOG.info("Leader: job {} assigned to {} ({}) under epoch {} (previous owner {})", a.job().name(), a.to().url(),
                            a.to().id(), a.job().epoch() + 1, a.job().owner() == null ? "none" : a.job().ownerUrl());
                }
            }
        }
    }

    private void start(ClusterJobStore store, String self, ClusterJob job) {
        LocalRun run = new LocalRun(job.name(), job.epoch(), nanos.getAsLong());
        leases.hold(job.name(), job.epoch(), run.renewedAt + stopAfterNanos); // before the run creates its counter and store
        runs.put(job.name(), run);
        try {
            run.handle = starter.start(job, new RunListener(run));
        } catch (Exception e) {
            runs.remove(job.name(), run);
            leases.release(job.name(), job.epoch());
            if (String.valueOf(e.getMessage()).contains("already running")) {
                LOG.debug("Job {} (epoch {}) waits for this node's earlier run of it to end", job.name(), job.epoch());
                return;
            }
            int failures = startFailures.merge(job.name(), 1, Integer::sum);
            if (failures < MAX_START_FAILURES) {
                LOG.debug("Job {} (epoch {}) cannot start yet ({} tries): {}", job.name(), job.epoch(), failures, e.getMessage());
                return;
            }
            startFailures.remove(job.name());
            LOG.error("Job {} cannot start on this node: {}", job.name(), e.getMessage());
            store.end(job.name(), self, job.epoch(), ClusterJobStatus.FAILED, "cannot start: " + e.getMessage());
            return;
        }
        startFailures.remove(job.name());
        if (runs.get(job.name()) != run) {
            LOG.warn("Job {} (epoch {}) was stopped while it started; suspending the run", job.name(), job.epoch());
            run.handle.suspend();
            return;
        }
        LOG.info("Running job {} under epoch {} (owner {})", job.name(), job.epoch(), settings.nodeUrl());
        run.handle.result().whenComplete((result, error) -> loop.execute(() -> guarded("end of " + job.name(),
                () -> ended(store, self, run, result, error))));
    }

    /** Stops this node's run: the lease goes first, so a restart of the run cannot create its counter or store again. */
    private void stop(LocalRun run, String why, boolean cancel) {
        if (!runs.remove(run.name, run)) {
            return;
        }
        leases.release(run.name, run.epoch);
        abandoned.put(run.name, run.epoch);
        LOG.warn("Stopping this node's run of job {} (epoch {}): {}", run.name, run.epoch, why);
        JobHandle handle = run.handle;
        if (handle != null) {
            if (cancel) {
                handle.cancel();
            } else {
                handle.suspend();
            }
        }
    }

    private void ended(ClusterJobStore store, String self, LocalRun run, JobResult result, Throwable error) {
        if (!runs.remove(run.name, run)) {
            return; // stopped by this node: the store has moved on
        }
        leases.release(run.name, run.epoch);
        JobStatus status = result == null ? JobStatus.FAILED : result.status();
        ClusterJobStatus to = switch (status) {
            case FINISHED -> ClusterJobStatus.FINISHED;
            case CANCELED -> ClusterJobStatus.CANCELED;
            case SUSPENDED -> null; // the engine stops (the node shuts down): another node takes the job
            default -> ClusterJobStatus.FAILED;
        };
        if (to == null) {
            LOG.info("Run of job {} (epoch {}) suspended on this node", run.name, run.epoch);
            return;
        }
        Throwable failure = error != null ? error : result.failure();
        String message = failure == null ? "" : String.valueOf(failure.getMessage());
        if (store.end(run.name, self, run.epoch, to, message)) {
            LOG.info("Job {} ended {} under epoch {}; removing its checkpoint id counter and completed store", run.name, to, run.epoch);
            recovery.removeJob(run.name, run.epoch);
        } else {
            LOG.warn("Job {} ended {} here under epoch {}, but the job store has moved on; not recorded", run.name, to, run.epoch);
        }
    }

    private static String describe(ClusterJob job) {
        return job == null ? "no such job" : job.status() + (job.owner() == null ? "" : " on " + job.ownerUrl()) + ", epoch " + job.epoch();
    }

    /** Follows one run: logs each completed checkpoint with its epoch (what the HA tests read). */
    private final class RunListener implements JobListener {
        private final LocalRun run;

        RunListener(LocalRun run) {
            this.run = run;
        }

        @Override
        public void onCompleted(CompletedCheckpointStats stats) {
            LOG.info("Job {} completed checkpoint {} under epoch {} at {}", run.name, stats.checkpointId(), run.epoch,
                    System.currentTimeMillis());
        }
    }

    private static void guarded(String what, Runnable body) {
        try {
            body.run();
        } catch (RuntimeException e) {
            LOG.warn("Cluster job {} failed: {}", what, e.toString());
        }
    }

    private static ScheduledExecutorService daemon(String name) {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /** Stops the loops; runs are left to the engine (which suspends them as it stops). */
    @Override
    public void close() {
        loop.shutdownNow();
        watchdog.shutdownNow();
        renewer.shutdownNow();
    }
}
