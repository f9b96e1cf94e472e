package io.weir.runtime.scheduler;

import io.weir.api.RowSerializer;
import io.weir.core.checkpoint.CompletedCheckpoint;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.config.Configuration;
import io.weir.core.config.ExecutionOptions;
import io.weir.core.job.JobEdge;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobVertex;
import io.weir.core.job.Partitioning;
import io.weir.core.job.VertexKind;
import io.weir.core.state.KeyHashVersion;
import io.weir.runtime.io.network.BufferPool;
import io.weir.runtime.io.network.ChannelSelector;
import io.weir.runtime.io.network.InputGate;
import io.weir.runtime.io.network.KeySelector;
import io.weir.runtime.io.network.PipelinedSubpartition;
import io.weir.runtime.io.network.RecordWriter;
import io.weir.runtime.tasks.InputStreamTask;
import io.weir.runtime.tasks.SourceStreamTask;
import io.weir.runtime.tasks.StreamTask;
import io.weir.runtime.tasks.TaskDeployment;
import io.weir.runtime.tasks.TaskServices;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Builds the tasks of one execution attempt of a job: a task per (chain, subtask) of the {@link ExecutionPlan},
 * wired by local channels (one {@link PipelinedSubpartition} per network edge, producer subtask and consumer
 * subtask), each with the state assigned to it from the checkpoint restored (rescaling by key groups) and the
 * in-flight channel state of an unaligned checkpoint replayed into its channels. The job-level lifecycle
 * (attempts, failover, status) stays with the {@link JobMaster}. Stateless between calls; job master thread.
 */
final class TaskDeployer {
    private final JobGraph job;
    private final ExecutionPlan plan;

    /**
     * @param job the job
     * @param plan its chains and network edges
     */
    TaskDeployer(JobGraph job, ExecutionPlan plan) {
        this.job = job;
        this.plan = plan;
    }

    /**
     * The tasks of one attempt, built and wired but not started.
     *
     * @param jobName the job, naming the task threads
     * @param tasks every task of the attempt
     * @param writersByOperator the attempt's record writers by the operator whose rows they carry (a chain's tail)
     */
    record Attempt(String jobName, List<StreamTask> tasks, Map<String, List<RecordWriter>> writersByOperator) {
        Attempt {
            tasks = List.copyOf(tasks);
            writersByOperator = Map.copyOf(writersByOperator);
        }

        /** Starts one daemon thread per task, named {@code <job>/<vertex>#<subtask>}. */
        void start() {
            for (StreamTask t : tasks) {
                Thread thread = new Thread(t, jobName + "/" + t.taskId().vertexId() + "#" + t.taskId().subtaskIndex());
                thread.setDaemon(true);
                thread.start();
            }
        }
    }

    /**
     * Builds the tasks of attempt {@code attempt}.
     *
     * @param attempt the attempt number (0 for the first deployment, +1 per restart)
     * @param restore the checkpoint to restore from, empty for a fresh start
     * @param taskServices the services every task of the attempt uses
     * @return the attempt's tasks, not started
     * @throws IllegalStateException if the checkpoint cannot be restored into this job (see
     *         {@link StateAssignment#checkRestorable} and {@link ChannelStateRestore})
     * @throws java.io.UncheckedIOException if the checkpoint's channel state cannot be read
     */
    Attempt build(int attempt, Optional<CompletedCheckpoint> restore, TaskServices taskServices) {
        Configuration config = job.config();
        int bufferSize = config.get(ExecutionOptions.BUFFER_SIZE);
        int credits = config.get(ExecutionOptions.BUFFERS_PER_CHANNEL);
        int floating = config.get(ExecutionOptions.FLOATING_BUFFERS_PER_GATE);
        int maxParallelism = config.get(ExecutionOptions.MAX_PARALLELISM);
        // the job keeps the placement its state was written with, for its life (also across rescaling)
        KeyHashVersion keyHashVersion = keyHashVersion(restore);

        // one subpartition per (network edge, producer subtask, consumer subtask)
        Map<JobEdge, PipelinedSubpartition[][]> links = new HashMap<>();
        for (JobEdge e : plan.networkEdges()) {
            int p = job.vertex(e.source()).parallelism();
            int q = job.vertex(e.target()).parallelism();
            PipelinedSubpartition[][] m = new PipelinedSubpartition[p][q];
            for (int i = 0; i < p; i++) {
                for (int j = 0; j < q; j++) {
                    if (e.partitioning() != Partitioning.FORWARD || i == j) {
                        m[i][j] = new PipelinedSubpartition(credits);
                    }
                }
            }
            links.put(e, m);
        }

        List<StreamTask> created = new ArrayList<>();
        Map<String, List<RecordWriter>> writersOf = new HashMap<>();
        restore.ifPresent(cp -> StateAssignment.checkRestorable(cp.metadata(), job, maxParallelism,
                type -> taskServices.plugins().source(type).map(io.weir.api.plugin.SourceFactory::supportsRescale).orElse(false)));
        ChannelStateRestore channelState = new ChannelStateRestore(restore.map(CompletedCheckpoint::metadata), job,
                plan.networkEdges(), maxParallelism, bufferSize);
        for (List<JobVertex> chain : plan.chains()) {
            JobVertex head = chain.get(0);
            JobVertex tail = chain.get(chain.size() - 1);
            for (int s = 0; s < head.parallelism(); s++) {
                TaskId id = new TaskId(head.id(), s, attempt);
                Map<String, OperatorSubtaskState> restoreState = new HashMap<>();
                for (JobVertex v : chain) {
                    final int subtask = s;
                    restore.ifPresent(cp -> restoreState.put(v.id(), StateAssignment.assign(cp.metadata(), v, subtask, maxParallelism)));
                }
                // outputs
                List<JobEdge> outEdges = job.outputsOf(tail.id());
                int subpartitions = 0;
                for (JobEdge e : outEdges) {
                    subpartitions += e.partitioning() == Partitioning.FORWARD ? 1 : job.vertex(e.target()).parallelism();
                }
                BufferPool pool = outEdges.isEmpty() ? null : new BufferPool(bufferSize, subpartitions * (credits + 1) + floating);
                List<RecordWriter> writers = new ArrayList<>();
                List<PipelinedSubpartition> outputs = new ArrayList<>();
                for (JobEdge e : outEdges) {
                    PipelinedSubpartition[] row = links.get(e)[s];
                    List<PipelinedSubpartition> sps = new ArrayList<>();
                    for (PipelinedSubpartition sp : row) {
                        if (sp != null) {
                            sps.add(sp);
                        }
                    }
                    outputs.addAll(sps);
                    writers.add(new RecordWriter(sps, pool, selector(e, tail, s, sps.size(), maxParallelism, keyHashVersion), new RowSerializer(e.schemaFrom(tail)),
                            e.output()));
                }
                if (!writers.isEmpty()) {
                    writersOf.computeIfAbsent(tail.id(), v -> new ArrayList<>()).addAll(writers);
                }
                // inputs
                InputGate gate = null;
                KeySelector keySelector = null;
                if (head.kind() != VertexKind.SOURCE) {
                    List<PipelinedSubpartition> channels = new ArrayList<>();
                    for (JobEdge e : job.inputsOf(head.id())) {
                        PipelinedSubpartition[][] m = links.get(e);
                        for (PipelinedSubpartition[] producerRow : m) {
                            if (producerRow[s] != null) {
                                channels.add(producerRow[s]);
                            }
                        }
                        if (head.keyed()) {
                            keySelector = new KeySelector(head.inputSchema(), e.keyFields(), keyHashVersion);
                        }
                    }
                    gate = new InputGate(channels);
                }
                channelState.addPool(outputs, pool);
                TaskDeployment d = new TaskDeployment(job.name(), id, chain, config, restoreState, restore.isPresent(), gate,
                        head.inputSchema() == null ? null : new RowSerializer(head.inputSchema()), keySelector, writers, pool);
                created.add(head.kind() == VertexKind.SOURCE ? new SourceStreamTask(d, taskServices) : new InputStreamTask(d, taskServices));
            }
        }
        channelState.replay(links);
        return new Attempt(job.name(), created, writersOf);
    }

    /**
     * @param restore the checkpoint an attempt restores from, if any
     * @return how the attempt places keys: as the restored state was placed, {@link KeyHashVersion#CURRENT} for a
     *         fresh start (the checkpoint coordinator records the same in every checkpoint of the attempt)
     */
    static KeyHashVersion keyHashVersion(Optional<CompletedCheckpoint> restore) {
        return restore.map(cp -> cp.metadata().keyHashVersion()).orElse(KeyHashVersion.CURRENT);
    }

    private static ChannelSelector selector(JobEdge e, JobVertex producer, int subtask, int channels, int maxParallelism,
            KeyHashVersion keyHashVersion) {
        return switch (e.partitioning()) {
            case FORWARD -> ChannelSelector.forward();
            case BROADCAST -> ChannelSelector.broadcast();
            case REBALANCE -> ChannelSelector.rebalance(channels, subtask);
            case HASH -> ChannelSelector.hash(new KeySelector(e.schemaFrom(producer), e.keyFields(), keyHashVersion),
                    maxParallelism, channels);
        };
    }
}
