package io.weir.runtime.engine;

import io.weir.core.barrier.CheckpointBarrierHandlerFactory;
import io.weir.core.config.Configuration;
import io.weir.core.config.EngineOptions;
import io.weir.core.coordination.CheckpointCoordinatorFactory;
import io.weir.core.engine.Engine;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.ha.CheckpointRecoveryFactory;
import io.weir.core.job.JobGraph;
import io.weir.core.plugin.MapPluginRegistry;
import io.weir.core.state.StateBackend;
import io.weir.core.storage.CheckpointStorageFactory;
import io.weir.runtime.scheduler.JobMaster;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The embedded single-node engine: every task of every job runs in this JVM, connected by local
 * channels. Thread-safe.
 */
public final class LocalEngine implements Engine, AutoCloseable {
    private final EngineServices services;
    /**
     * Running jobs by name; {@link #RESERVED} while a submit builds the job. Concurrent map: the
     * name's reservation is the atomic check that keeps two jobs of one name apart.
     */
    private final Map<String, JobHandle> jobs = new ConcurrentHashMap<>();
    /** Placeholder for a job name whose job is being built. */
    private static final JobHandle RESERVED = new ReservedName();

    /** @param services what the engine is assembled from */
    public LocalEngine(EngineServices services) {
        this.services = services;
    }

    /**
     * Assembles an engine from the implementations visible to {@code loader} through ServiceLoader
     * (the non-OSGi wiring used by tests and benchmarks).
     *
     * @param config engine configuration ({@link EngineOptions}: {@code state.async-snapshot.threads})
     * @throws IllegalStateException naming the missing service if one is not on the class path
     */
    public static LocalEngine fromServiceLoader(ClassLoader loader, Configuration config) {
        return fromServiceLoader(loader, config, first(CheckpointRecoveryFactory.class, loader));
    }

    /**
     * As {@link #fromServiceLoader(ClassLoader, Configuration)}, with the given ID counter and completed-store factory
     * instead of the one ServiceLoader finds (e.g. the Hazelcast one of a benchmark that runs its own cluster members).
     *
     * @param config engine configuration ({@link EngineOptions}: {@code state.async-snapshot.threads})
     * @param recovery creates each job's checkpoint ID counter and completed-checkpoint store
     * @throws IllegalStateException naming the missing service if one is not on the class path
     * @throws NullPointerException if {@code recovery} is null
     */
    public static LocalEngine fromServiceLoader(ClassLoader loader, Configuration config, CheckpointRecoveryFactory recovery) {
        Objects.requireNonNull(recovery, "recovery");
        Map<String, StateBackend> backends = new HashMap<>();
        ServiceLoader.load(StateBackend.class, loader).forEach(b -> backends.put(b.type(), b));
        Map<String, CheckpointBarrierHandlerFactory> handlers = new HashMap<>();
        ServiceLoader.load(CheckpointBarrierHandlerFactory.class, loader).forEach(h -> handlers.put(h.type(), h));
        return new LocalEngine(new EngineServices(MapPluginRegistry.fromServiceLoader(loader), backends,
                first(CheckpointStorageFactory.class, loader), handlers, first(CheckpointCoordinatorFactory.class, loader),
                recovery, newAsyncOperations(config.get(EngineOptions.ASYNC_THREADS)), newTimers()));
    }

    private static <T> T first(Class<T> type, ClassLoader loader) {
        return ServiceLoader.load(type, loader).findFirst()
                .orElseThrow(() -> new IllegalStateException("no " + type.getName() + " implementation on the class path"));
    }

    /** @return the AsyncOperations pool: {@code threads} daemon threads named {@code AsyncOperations-N} */
    public static ExecutorService newAsyncOperations(int threads) {
        return Executors.newFixedThreadPool(Math.max(1, threads), named("AsyncOperations-"));
    }

    /** @return the engine timer thread (buffer timeout flushes, restarts) */
    public static ScheduledExecutorService newTimers() {
        return Executors.newSingleThreadScheduledExecutor(named("weir-timer-"));
    }

    private static ThreadFactory named(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** @return the engine's services (e.g. the plugin registry for the job parser) */
    public EngineServices services() {
        return services;
    }

    /**
     * Builds and starts a job. A job name already running on this engine is rejected before
     * anything of the new job is built: building its {@link JobMaster} reads, and for a finished
     * earlier run removes, the checkpoints under the job's name, which belong to the running job.
     *
     * @throws IllegalArgumentException if a job of the same name is running (nothing of either job
     *         is touched), or the job cannot be built (naming the job and the cause)
     */
    @Override
    public JobHandle submit(JobGraph job, JobListener listener) {
        // the name is reserved first, so a second submit of a running name cannot build anything
        if (jobs.putIfAbsent(job.name(), RESERVED) != null) {
            throw new IllegalArgumentException("a job named '" + job.name() + "' is already running on this engine;"
                    + " wait for it to end or cancel it, or give this job another name");
        }
        JobMaster master = null;
        try {
            master = new JobMaster(job, services, FailureInjectionReport.wrapIfInjecting(job, listener));
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalArgumentException("cannot start job " + job.name() + ": " + e.getMessage(), e);
        } finally {
            if (master == null) {
                jobs.remove(job.name(), RESERVED);
            }
        }
        jobs.replace(job.name(), RESERVED, master);
        JobMaster started = master;
        master.result().whenComplete((r, e) -> jobs.remove(job.name(), started));
        master.start();
        return master;
    }

    /**
     * Suspends every job (each ends SUSPENDED, its checkpoints kept for a later run to resume from),
     * waits up to 15 s per job for it to end, and stops the engine's threads.
     */
    @Override
    public void close() {
        jobs.values().stream().filter(j -> j != RESERVED).forEach(JobHandle::suspend);
        for (JobHandle j : jobs.values()) {
            if (j == RESERVED) {
                continue;
            }
            try {
                j.result().get(15, TimeUnit.SECONDS);
            } catch (Exception e) {
                // logged by the job master; keep closing
            }
        }
        services.asyncOperations().shutdownNow();
        services.timers().shutdownNow();
    }

    /** Holds a job name while its job is built; never returned to callers. */
    private static final class ReservedName implements JobHandle {
        @Override
        public String jobName() {
            return "(reserved)";
        }

        @Override
        public JobStatus status() {
            return JobStatus.CREATED;
        }

        @Override
        public CompletableFuture<JobResult> result() {
            return new CompletableFuture<>();
        }

        @Override
        public CompletableFuture<CompletedCheckpoint> triggerCheckpoint() {
            return CompletableFuture.failedFuture(new IllegalStateException("job is being built"));
        }

        @Override
        public void cancel() {
        }

        @Override
        public void suspend() {
        }
    }
}
