package io.weir.rest.node;

import io.weir.core.engine.Engine;
import io.weir.core.config.Configuration;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.InvalidJobException;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.core.plugin.PluginRegistry;
import jakarta.json.spi.JsonProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The jobs of this node: submits job specs to the {@link Engine}, gives each job a 32-hex id (like
 * Flink's JobID), and finds, lists and cancels them. Jobs run side by side on the one engine; a
 * job failing or being cancelled changes only its own entry.
 *
 * <p>With a {@link JobRegistry}, every job is written to it on submit and on every status change;
 * {@link #recover} (at node start) submits again, with the same id, every job that had not ended
 * (including those SUSPENDED when the node stopped), and lists the ended ones as history.
 * {@link #close} (the node stopping) suspends the running jobs, so the registry says SUSPENDED and
 * the next start resumes them; a node killed outright leaves them RUNNING there, which resumes them
 * too. Without a registry, ended jobs stay listed until the node stops.
 *
 * <p>Thread-safe: the job table is a concurrent map; a submit of a name that is already running
 * is refused by the engine's own atomic name reservation, so two concurrent submits of one name
 * cannot both start.
 */
public final class NodeJobs {
    private static final Logger LOG = LoggerFactory.getLogger(NodeJobs.class);
    private static final HexFormat HEX = HexFormat.of();
    /** Longest wait in {@link #close} for the suspended jobs to end, in ms. */
    static final long SUSPEND_WAIT_MS = 20_000;

    private final Engine engine;
    private final JobSpecParser parser;
    private final PluginWait pluginWait;
    private final LongSupplier clock;
    private final SecureRandom random = new SecureRandom();
    /** By id. */
    private final Map<String, NodeJob> jobs = new ConcurrentHashMap<>();
    /** Null: nothing is persisted. */
    private final JobRegistry registry;
    /** Ids of cluster jobs run here ({@link #startClusterRun}): never persisted. */
    private final java.util.Set<String> clusterRuns = ConcurrentHashMap.newKeySet();
    /**
     * Cluster job id → the end the cluster waits for ({@link ClusterRunHandle#result}), while this node holds the job
     * (from {@link #startClusterRun} until the job ends here or the cluster {@linkplain #releaseClusterRun releases}
     * it). Only held cluster jobs are moved, parked and resumed by plugin upgrades.
     */
    private final Map<String, java.util.concurrent.CompletableFuture<io.weir.core.engine.JobResult>> heldClusterRuns =
            new ConcurrentHashMap<>();
    /** Cluster job id → the end of its latest {@link #startClusterRun} on this node (kept after it completed). */
    private final Map<String, java.util.concurrent.CompletableFuture<io.weir.core.engine.JobResult>> clusterEnds =
            new ConcurrentHashMap<>();
    /** Cluster run id → the cluster's listener of its current run. */
    private final Map<String, io.weir.core.engine.JobListener> clusterListeners = new ConcurrentHashMap<>();
    /** Set once by {@link #close}; from then on nothing is written to the registry. */
    private volatile boolean closed;

    /**
     * @param engine runs the jobs
     * @param plugins the installed plugins, for the job parser
     * @param json the JSON-P provider for the job parser
     * @param pluginWait waits for plugin types still being installed (FileInstall) before parsing
     * @param clock milliseconds since the epoch
     */
    public NodeJobs(Engine engine, PluginRegistry plugins, JsonProvider json, PluginWait pluginWait, LongSupplier clock) {
        this(engine, plugins, json, pluginWait, clock, null);
    }

    /**
     * @param engine runs the jobs
     * @param plugins the installed plugins, for the job parser
     * @param json the JSON-P provider for the job parser
     * @param pluginWait waits for plugin types still being installed (FileInstall) before parsing
     * @param clock milliseconds since the epoch
     * @param registry where the jobs are persisted, or null for none
     */
    public NodeJobs(Engine engine, PluginRegistry plugins, JsonProvider json, PluginWait pluginWait, LongSupplier clock,
            JobRegistry registry) {
        this(engine, plugins, json, pluginWait, clock, registry, type -> java.util.Optional.empty());
    }

    /**
     * @param whyUnavailable why a type no factory serves is unusable although a plugin declares it (the plugin failed;
     *        {@code PluginInventory#whyUnavailable}), or empty; the parser's message then names the cause
     * @see #NodeJobs(Engine, PluginRegistry, JsonProvider, PluginWait, LongSupplier, JobRegistry)
     */
    public NodeJobs(Engine engine, PluginRegistry plugins, JsonProvider json, PluginWait pluginWait, LongSupplier clock,
            JobRegistry registry, java.util.function.Function<String, java.util.Optional<String>> whyUnavailable) {
        this.registry = registry;
        this.engine = engine;
        this.parser = new JobSpecParser(plugins, json, whyUnavailable);
        this.pluginWait = pluginWait;
        this.clock = clock;
    }

    /**
     * Validates and starts a job.
     *
     * @param spec the job spec, a JSON object as in {@code docs/job-format.md}
     * @param baseDirectory relative paths in plugin configs resolve against it (absolute)
     * @param overrides configuration applied after the spec's {@code config}, as {@code --set} does
     * @return the started job
     * @throws JobSubmissionException if the spec is invalid (the parser's message naming the field)
     *         or the engine cannot build it
     * @throws JobConflictException if a job of the same name is running on this node
     * @throws NodeStorageException if the job cannot be written to the registry (the job is not started)
     */
    public NodeJob submit(String spec, Path baseDirectory, Map<String, String> overrides) {
        return start(newId(), spec, baseDirectory, overrides, clock.getAsLong(), null, java.util.Set.of(), new UpgradeHistory(),
                true);
    }

    /**
     * Starts this node's run of a cluster job (the cluster decides where it runs): listed under the cluster job's
     * {@code id}, never written to the registry (a node restart does not resume it; the cluster gives it to a member).
     * Plugin upgrades move it like a local job while this node holds it (docs/plugins.md "Cluster jobs"); the cluster
     * follows it through {@link #clusterHandle}, which spans those moves. Does not wait for plugins being installed:
     * the cluster retries the start.
     *
     * @param id the cluster job's id; a previous run of it on this node is replaced in the table
     * @param spec the job spec
     * @param baseDirectory relative paths resolve against it (absolute)
     * @param overrides configuration overrides
     * @param submitTime when the job was submitted to the cluster, ms since the epoch
     * @param listener the cluster's listener of this run and of the runs that replace it, told after the node's own
     *        bookkeeping
     * @return the started run
     * @throws JobSubmissionException if the spec is invalid here or the engine cannot build it
     * @throws JobConflictException if a job of the same name is still running on this node
     */
    public NodeJob startClusterRun(String id, String spec, Path baseDirectory, Map<String, String> overrides, long submitTime,
            io.weir.core.engine.JobListener listener) {
        clusterRuns.add(id);
        clusterListeners.put(id, listener);
        java.util.concurrent.CompletableFuture<io.weir.core.engine.JobResult> end = new java.util.concurrent.CompletableFuture<>();
        heldClusterRuns.put(id, end);
        clusterEnds.put(id, end);
        try {
            return start(id, spec, baseDirectory, overrides, submitTime, null, java.util.Set.of(), new UpgradeHistory(), false);
        } catch (RuntimeException e) {
            heldClusterRuns.remove(id, end);
            throw e;
        }
    }

    /**
     * @param id a cluster job's id, just started by {@link #startClusterRun}
     * @return the handle the cluster holds while this node runs the job: it follows the job's current run across plugin
     *         moves, and its result completes only when the job ends here
     * @throws IllegalStateException if this node never started a run of the job
     */
    public JobHandle clusterHandle(String id) {
        java.util.concurrent.CompletableFuture<io.weir.core.engine.JobResult> end = clusterEnds.get(id);
        NodeJob job = jobs.get(id);
        if (end == null || job == null) {
            throw new IllegalStateException("cluster job " + id + " is not run by this node");
        }
        return new ClusterRunHandle(this, id, job.name(), end);
    }

    /**
     * The cluster takes a job back from this node (its lease is gone, or the job was cancelled): from now on plugin
     * changes neither move nor resume it here. The cluster's result completes with the current run's end, or at once
     * with {@code status} if the job is parked (SUSPENDED waiting for a plugin).
     *
     * @param id the cluster job's id
     * @param status what the end of a parked job is reported as (SUSPENDED or CANCELED)
     * @return the handle of the job's current run, to suspend or cancel
     */
    JobHandle releaseClusterRun(String id, JobStatus status) {
        java.util.concurrent.CompletableFuture<io.weir.core.engine.JobResult> end = heldClusterRuns.remove(id);
        NodeJob job = jobs.get(id);
        JobHandle handle = job == null ? new EndedJob(id, status, null) : job.handle();
        if (end != null) {
            if (handle instanceof EndedJob) {
                end.complete(new io.weir.core.engine.JobResult(handle.jobName(), status, null, 0, null));
            } else {
                handle.result().thenAccept(end::complete);
            }
        }
        return handle;
    }

    /** @return whether {@code id} is a cluster job run on this node (moved through its latest checkpoint, not a savepoint) */
    boolean isClusterRun(String id) {
        return clusterRuns.contains(id);
    }

    /** A cluster job's run ended: unless a move retired it for a next run, that is the job's end on this node. */
    private void clusterRunEnded(NodeJob run, io.weir.core.engine.JobResult result) {
        if (run.retired() || jobs.get(run.id()) != run) {
            return;
        }
        java.util.concurrent.CompletableFuture<io.weir.core.engine.JobResult> end = heldClusterRuns.remove(run.id());
        if (end != null) {
            end.complete(result);
        }
    }

    /**
     * @param previous the registry record of a job resumed after a node restart (its latest checkpoints), or null
     * @param excluded plugin versions not to bind (the job rolled back from them)
     * @param upgrades the job's plugin moves so far
     * @param waitForPlugins whether to wait for plugin types still being installed (not for a move: the node moves a job
     *        only once the registry holds what it needs)
     */
    private NodeJob start(String id, String spec, Path baseDirectory, Map<String, String> overrides, long submitTime,
            JobRecord previous, java.util.Set<io.weir.core.plugin.PluginOrigin> excluded, UpgradeHistory upgrades,
            boolean waitForPlugins) {
        JobGraph graph;
        try {
            if (waitForPlugins) {
                pluginWait.await(spec);
            }
            graph = parser.parse(spec, baseDirectory, overrides, excluded);
        } catch (InvalidJobException e) {
            throw new JobSubmissionException(e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JobSubmissionException("interrupted while waiting for the job's plugins to be installed", e);
        }
        for (NodeJob j : jobs.values()) {
            if (j.name().equals(graph.name()) && !j.status().isTerminal() && !j.retired()) {
                throw new JobConflictException(alreadyRunning(j));
            }
        }
        JobRecord submitted = new JobRecord(id, graph.name(), spec, baseDirectory.toString(), overrides,
                JobStatus.CREATED, submitTime, -1, null,
                previous == null ? null : previous.latestCheckpoint(), previous == null ? null : previous.latestSavepoint());
        if (registry != null && !closed && !clusterRuns.contains(id)) {
            try {
                registry.write(submitted); // before the job starts: a job the registry cannot keep is not run
            } catch (java.io.UncheckedIOException e) {
                throw new NodeStorageException("job " + graph.name() + " was not started: the node cannot keep it in its job registry ("
                        + e.getMessage() + "); free space in or fix the node's data directory, then submit it again", e);
            }
        }
        NodeJob job = newJob(graph, submitted, upgrades);
        JobHandle handle;
        try {
            handle = submitToEngine(graph, job, !waitForPlugins && previous != null);
        } catch (IllegalArgumentException e) {
            String message = e.getMessage() == null ? e.toString() : e.getMessage();
            if (message.contains("already running")) {
                throw new JobConflictException(message); // lost a race with another submit of the name
            }
            throw new JobSubmissionException("cannot submit job " + graph.name() + ": " + message, e);
        }
        job.attach(handle);
        jobs.put(job.id(), job);
        if (clusterRuns.contains(id)) {
            handle.result().thenAccept(r -> clusterRunEnded(job, r));
        }
        persist(job);
        LOG.info("Submitted job {} as {} ({} operators)", graph.name(), job.id(), graph.vertices().size());
        return job;
    }

    /** Longest wait in {@link #submitToEngine} for the engine to release the name of the run a move replaces, in ms. */
    private static final long NAME_RELEASE_WAIT_MS = 5_000;

    /**
     * Submits to the engine. For the next run of a job on this node ({@code nextRun}: an upgrade, a rollback, a
     * parked job resuming) the engine may not have released the previous run's name yet when that run's result
     * completed (its own completion callback runs after the node's); such a submit is retried every ms for up to
     * {@link #NAME_RELEASE_WAIT_MS}.
     */
    private JobHandle submitToEngine(JobGraph graph, NodeJob job, boolean nextRun) {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(NAME_RELEASE_WAIT_MS);
        while (true) {
            try {
                io.weir.core.engine.JobListener cluster = clusterListeners.get(job.id());
                return engine.submit(graph, cluster == null ? job : new TeeJobListener(job, cluster));
            } catch (IllegalArgumentException e) {
                if (!nextRun || e.getMessage() == null || !e.getMessage().contains("already running") || System.nanoTime() > deadline) {
                    throw e;
                }
                try {
                    Thread.sleep(1);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private NodeJob newJob(JobGraph graph, JobRecord submitted, UpgradeHistory upgrades) {
        NodeJob[] self = new NodeJob[1];
        self[0] = new NodeJob(graph, clock, submitted, () -> persist(self[0]), upgrades);
        return self[0];
    }

    /**
     * Starts the next run of a job on this node (an upgrade, a rollback, a parked job whose plugin came back): the
     * same id, spec, base directory and overrides, restoring {@code savepoint} (or, if null, the job's latest
     * checkpoint), bound to the plugins the registry resolves now. The new run replaces {@code previous} in the job
     * table; {@code previous} must have ended (its engine job stopped) and been {@linkplain NodeJob#retire retired}.
     *
     * @param previous the job's current entry (a stopped run, or a parked job)
     * @param savepoint the savepoint to restore (absolute), or null for the job's latest checkpoint
     * @param excluded plugin versions not to bind
     * @return the new run
     * @throws JobSubmissionException if the spec no longer resolves (a plugin missing), the engine refuses it, or it
     *         is a cluster job the cluster took back from this node
     * @throws JobConflictException if the engine still runs a job of the name after the wait
     */
    NodeJob nextRun(NodeJob previous, Path savepoint, java.util.Set<io.weir.core.plugin.PluginOrigin> excluded) {
        JobRecord r = previous.record();
        if (!held(previous)) {
            throw new JobSubmissionException("cluster job " + r.name() + " (" + r.id() + ") is no longer run by this node: the "
                    + "cluster took it back (lease lost or cancelled) while it was being moved; its new owner restores it", null);
        }
        Map<String, String> overrides = savepoint != null ? restoring(r, savepoint) : resumeOverrides(r);
        return start(r.id(), r.spec(), Path.of(r.baseDirectory()), overrides, r.submitTime(), r, excluded,
                previous.upgrades(), false);
    }

    /**
     * Replaces a stopped run with a SUSPENDED entry saying why ({@code reason}), persisted with the overrides that
     * restore {@code savepoint} (or the latest checkpoint if null), so a node restart resumes it too.
     *
     * @param previous the job's stopped, {@linkplain NodeJob#retire retired} run
     * @param reason one line naming what is missing
     * @param savepoint the savepoint it stopped with, or null
     * @return the parked entry
     */
    NodeJob park(NodeJob previous, String reason, Path savepoint) {
        return replaceWithEnded(previous, JobStatus.SUSPENDED, reason, savepoint);
    }

    /**
     * Replaces a stopped run with a FAILED entry saying why, persisted.
     *
     * @param previous the job's stopped, {@linkplain NodeJob#retire retired} run
     * @param reason one line naming the plugin, the versions and the savepoint to restart from
     * @return the failed entry
     */
    NodeJob fail(NodeJob previous, String reason) {
        return replaceWithEnded(previous, JobStatus.FAILED, reason, null);
    }

    private NodeJob replaceWithEnded(NodeJob previous, JobStatus status, String reason, Path savepoint) {
        JobRecord r = previous.record();
        Map<String, String> overrides = savepoint != null ? restoring(r, savepoint) : r.overrides();
        JobRecord ended = new JobRecord(r.id(), r.name(), r.spec(), r.baseDirectory(), overrides, status, r.submitTime(),
                status == JobStatus.SUSPENDED ? -1 : clock.getAsLong(), reason, r.latestCheckpoint(), r.latestSavepoint());
        NodeJob job = new NodeJob(previous.graph(), clock, ended, () -> { }, previous.upgrades());
        job.attach(new EndedJob(r.name(), status, reason), clock.getAsLong());
        jobs.put(r.id(), job);
        if (clusterRuns.contains(r.id())) {
            if (status != JobStatus.SUSPENDED) { // a parked cluster job stays this node's: it resumes here
                java.util.concurrent.CompletableFuture<io.weir.core.engine.JobResult> end = heldClusterRuns.remove(r.id());
                if (end != null) {
                    end.complete(job.handle().result().join());
                }
            }
        } else if (registry != null && !closed) {
            try {
                registry.write(ended);
            } catch (RuntimeException e) {
                LOG.error("Job {} ({}): status {} not persisted: {}", r.name(), r.id(), status, e.getMessage());
            }
        }
        return job;
    }

    /**
     * @return the job's overrides, restoring {@code savepoint} (not the job's own checkpoints: the savepoint is newer
     *         than anything the job checkpointed before it)
     */
    private static Map<String, String> restoring(JobRecord r, Path savepoint) {
        Map<String, String> overrides = new java.util.HashMap<>(r.overrides());
        overrides.put(io.weir.core.config.CheckpointingOptions.SAVEPOINT_PATH.key(), savepoint.toString());
        overrides.remove(io.weir.core.config.CheckpointingOptions.SAVEPOINT_RESUME_OWN_CHECKPOINTS.key());
        return overrides;
    }

    /** @return the job's current entry (its newest run), or null */
    NodeJob current(String id) {
        return jobs.get(id);
    }

    /**
     * @return the jobs running (not ended) on the engine now that plugin upgrades may move: local jobs, and cluster jobs
     *         while this node holds them
     */
    List<NodeJob> live() {
        return jobs.values().stream().filter(j -> !j.retired() && j.handle() != null && !j.status().isTerminal()
                && held(j)).toList();
    }

    /** @return the jobs SUSPENDED on this node (parked: waiting for a plugin) that it may resume, oldest first */
    List<NodeJob> suspended() {
        return jobs.values().stream().filter(j -> j.handle() instanceof EndedJob && j.status() == JobStatus.SUSPENDED && held(j))
                .sorted(Comparator.comparingLong(NodeJob::startTime)).toList();
    }

    /** @return false for a cluster job the cluster no longer gives to this node (another member may run it) */
    private boolean held(NodeJob j) {
        return !clusterRuns.contains(j.id()) || heldClusterRuns.containsKey(j.id());
    }

    /**
     * Parses a job's spec against the registry as it is now, without starting it.
     *
     * @return the graph, or empty if it does not resolve (a plugin missing, no version in range, a conflict)
     */
    java.util.Optional<JobGraph> resolve(NodeJob job, java.util.Set<io.weir.core.plugin.PluginOrigin> excluded) {
        JobRecord r = job.record();
        try {
            return java.util.Optional.of(parser.parse(r.spec(), Path.of(r.baseDirectory()), r.overrides(), excluded));
        } catch (InvalidJobException e) {
            return java.util.Optional.empty();
        }
    }

    /** @return whether the node is stopping (then nothing is moved or parked) */
    boolean closed() {
        return closed;
    }

    /**
     * Writes a job's current state to the registry. Serialized per job, and each write takes the
     * state at the time of writing, so out-of-order callers still leave the newest state on disk.
     * A failed write is logged, never thrown: the job keeps running.
     */
    private void persist(NodeJob job) {
        if (registry == null || closed || job == null || job.retired() || jobs.get(job.id()) != job || clusterRuns.contains(job.id())) {
            return; // a run the node replaced (an upgrade): its end is not the job's
        }
        synchronized (job) {
            JobRecord record = job.record();
            if (record == null || closed) {
                return;
            }
            try {
                registry.write(record);
            } catch (RuntimeException e) {
                LOG.error("Job {} ({}): status {} not persisted; a node restart may not see it: {}", record.name(),
                        record.id(), record.status(), e.getMessage());
            }
        }
    }

    /**
     * Reads the registry (at node start): every job that had not ended (CREATED, RUNNING,
     * RESTARTING, SUSPENDED) is submitted again with its id, spec, base directory and overrides, so
     * the engine resumes it from its latest checkpoint; ended jobs are listed as history. A job the
     * node stopped while it was CANCELLING is recorded CANCELED, one that was FAILING FAILED (what
     * was under way is finished, not undone). A job that cannot be
     * resumed (its record is unreadable, its spec no longer parses, a plugin is missing, the engine
     * refuses it) is marked FAILED with the reason and logged; the other jobs are unaffected.
     *
     * @return how many jobs were submitted again
     * @throws IllegalStateException if this node has no registry
     * @throws java.io.UncheckedIOException if the registry directory cannot be listed
     */
    public int recover() {
        if (registry == null) {
            throw new IllegalStateException("this node has no job registry");
        }
        int resumed = 0;
        for (JobRegistry.Stored stored : registry.load()) {
            if (closed) {
                break;
            }
            if (jobs.containsKey(stored.id())) {
                continue;
            }
            if (!stored.readable()) {
                LOG.error("Job {} cannot be resumed: {}", stored.id(), stored.error());
                JobRecord failed = new JobRecord(stored.id(), stored.id(), "{}", registry.directory().toString(),
                        Map.of(), JobStatus.FAILED, clock.getAsLong(), clock.getAsLong(), stored.error());
                addEnded(failed, true);
                continue;
            }
            JobRecord r = stored.record();
            if (r.status().isGloballyTerminal()) {
                addEnded(r, false);
                continue;
            }
            if (r.status() == JobStatus.CANCELLING || r.status() == JobStatus.FAILING) {
                JobStatus ended = r.status() == JobStatus.CANCELLING ? JobStatus.CANCELED : JobStatus.FAILED;
                String reason = "the node stopped while the job was " + r.status()
                        + (r.failure() == null ? "" : ": " + r.failure());
                LOG.info("Job {} ({}) was {} when the node stopped; it is {} now, not resumed", r.name(), r.id(), r.status(), ended);
                addEnded(r.withStatus(ended, clock.getAsLong(), ended == JobStatus.FAILED ? reason : r.failure()), true);
                continue;
            }
            try {
                start(r.id(), r.spec(), Path.of(r.baseDirectory()), resumeOverrides(r), r.submitTime(), r, java.util.Set.of(),
                        new UpgradeHistory(), true);
                resumed++;
                LOG.info("Resumed job {} ({}), {} before the node stopped", r.name(), r.id(), r.status());
            } catch (RuntimeException e) {
                if (r.status() == JobStatus.SUSPENDED && r.failure() != null && r.failure().startsWith(PluginUpgrades.WAITING)) {
                    LOG.warn("Job {} ({}) stays SUSPENDED, {}", r.name(), r.id(), r.failure());
                    addEnded(r, false); // still waiting: PluginUpgrades resumes it when its plugin is installed
                    continue;
                }
                String reason = "cannot resume after the node restarted: " + (e.getMessage() == null ? e : e.getMessage());
                LOG.error("Job {} ({}) {}", r.name(), r.id(), reason);
                addEnded(r.withStatus(JobStatus.FAILED, clock.getAsLong(), reason), true);
            }
        }
        return resumed;
    }

    /**
     * The overrides a resumed job is submitted with: its own, and for a job first started from a savepoint
     * {@code execution.savepoint.resume-own-checkpoints=true}, so it continues from its own newest checkpoint if it
     * has one (restoring the savepoint again would write again what the job committed since) and from the savepoint
     * only if the node stopped before the job's first checkpoint completed (Flink's JobManager failover semantics).
     */
    private static Map<String, String> resumeOverrides(JobRecord r) {
        Map<String, String> overrides = new java.util.HashMap<>(r.overrides());
        if (overrides.containsKey(io.weir.core.config.CheckpointingOptions.SAVEPOINT_PATH.key())) {
            overrides.put(io.weir.core.config.CheckpointingOptions.SAVEPOINT_RESUME_OWN_CHECKPOINTS.key(), "true");
            LOG.info("Job {} ({}) resumes from its own newest checkpoint, or from the savepoint it was started from if it has none",
                    r.name(), r.id());
        }
        return overrides;
    }

    /** Lists an ended job (history, or one that could not be resumed); {@code write}: persist its record too. */
    private void addEnded(JobRecord r, boolean write) {
        JobGraph graph = new JobGraph(r.name(), Configuration.empty(), List.of(), List.of());
        NodeJob job = new NodeJob(graph, clock, r, () -> { });
        job.attach(new EndedJob(r.name(), r.status(), r.failure()), r.endTime());
        jobs.put(r.id(), job);
        if (write && registry != null && !closed) {
            try {
                registry.write(r);
            } catch (RuntimeException e) {
                LOG.error("Job {} ({}): status {} not persisted: {}", r.name(), r.id(), r.status(), e.getMessage());
            }
        }
    }

    /**
     * The node is stopping: suspends every running job ({@link JobHandle#suspend}: it ends SUSPENDED
     * and its checkpoints stay), waits up to {@code SUSPEND_WAIT_MS} in all for them to end so the
     * registry records SUSPENDED, then stops writing to the registry; the next node start resumes
     * them. A job still ending after the wait keeps its last persisted status (RUNNING), which
     * resumes it as well. Idempotent.
     */
    public void close() {
        if (closed) {
            return;
        }
        List<NodeJob> live = jobs.values().stream()
                .filter(j -> j.handle() != null && !j.status().isTerminal()).toList();
        for (NodeJob j : live) {
            LOG.info("Suspending job {} ({}): the node is stopping; it resumes on the next start", j.name(), j.id());
            j.handle().suspend();
        }
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(SUSPEND_WAIT_MS);
        for (NodeJob j : live) {
            try {
                j.handle().result().get(Math.max(1, deadline - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                LOG.warn("Job {} ({}) did not end within {} ms of being suspended; it stays {} in the registry and resumes "
                        + "on the next start", j.name(), j.id(), SUSPEND_WAIT_MS, JobStatus.RUNNING);
            }
        }
        closed = true;
    }

    private static String alreadyRunning(NodeJob j) {
        return "a job named '" + j.name() + "' is already " + j.status() + " on this node (id " + j.id()
                + "); cancel it first or give the new job another name";
    }

    private String newId() {
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        return HEX.formatHex(bytes);
    }

    /**
     * @param idOrName a job id, or a job name that is unique among the node's jobs (an ended job and
     *        a running one of the same name: the running one)
     * @return the job
     * @throws JobNotFoundException if no job has this id or name
     * @throws JobConflictException if several ended jobs have this name and none runs
     */
    public NodeJob find(String idOrName) {
        NodeJob byId = jobs.get(idOrName);
        if (byId != null) {
            return byId;
        }
        List<NodeJob> named = jobs.values().stream().filter(j -> j.name().equals(idOrName)).toList();
        List<NodeJob> running = named.stream().filter(j -> !j.status().isTerminal()).toList();
        if (running.size() == 1) {
            return running.get(0);
        }
        if (named.size() == 1) {
            return named.get(0);
        }
        if (named.isEmpty()) {
            throw new JobNotFoundException("no job with id or name '" + idOrName + "' on this node; GET /jobs lists them");
        }
        throw new JobConflictException("the name '" + idOrName + "' matches " + named.size() + " ended jobs ("
                + String.join(", ", named.stream().map(NodeJob::id).toList()) + "); use the job id");
    }

    /** @return every job of the node, newest first */
    public List<NodeJob> list() {
        List<NodeJob> all = new ArrayList<>(jobs.values());
        all.sort(Comparator.comparingLong(NodeJob::startTime).reversed().thenComparing(NodeJob::id));
        return all;
    }

    /**
     * Cancels a running job; returns at once (the job reaches CANCELED asynchronously).
     *
     * @param idOrName see {@link #find}
     * @return the job
     * @throws JobNotFoundException if no job has this id or name
     * @throws JobConflictException if the job has already ended, naming its status
     */
    public NodeJob cancel(String idOrName) {
        NodeJob job = find(idOrName);
        if (job.status().isTerminal()) {
            throw new JobConflictException("job " + job.name() + " (" + job.id() + ") has already ended: " + job.status());
        }
        LOG.info("Cancelling job {} ({}) on request", job.name(), job.id());
        job.handle().cancel();
        return job;
    }
}
