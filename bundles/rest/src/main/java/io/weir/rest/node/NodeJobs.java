package io.weir.rest.node;

import io.weir.core.engine.Engine;
import io.weir.core.engine.JobHandle;
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
 * job failing or being cancelled changes only its own entry. Ended jobs stay listed (with their
 * final status) until the node stops; nothing is persisted yet.
 *
 * <p>Thread-safe: the job table is a concurrent map; a submit of a name that is already running
 * is refused by the engine's own atomic name reservation, so two concurrent submits of one name
 * cannot both start.
 */
public final class NodeJobs {
    private static final Logger LOG = LoggerFactory.getLogger(NodeJobs.class);
    private static final HexFormat HEX = HexFormat.of();

    private final Engine engine;
    private final JobSpecParser parser;
    private final PluginWait pluginWait;
    private final LongSupplier clock;
    private final SecureRandom random = new SecureRandom();
    /** By id. */
    private final Map<String, NodeJob> jobs = new ConcurrentHashMap<>();

    /**
     * @param engine runs the jobs
     * @param plugins the installed plugins, for the job parser
     * @param json the JSON-P provider for the job parser
     * @param pluginWait waits for plugin types still being installed (FileInstall) before parsing
     * @param clock milliseconds since the epoch
     */
    public NodeJobs(Engine engine, PluginRegistry plugins, JsonProvider json, PluginWait pluginWait, LongSupplier clock) {
        this.engine = engine;
        this.parser = new JobSpecParser(plugins, json);
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
     */
    public NodeJob submit(String spec, Path baseDirectory, Map<String, String> overrides) {
        JobGraph graph;
        try {
            pluginWait.await(spec);
            graph = parser.parse(spec, baseDirectory, overrides);
        } catch (InvalidJobException e) {
            throw new JobSubmissionException(e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JobSubmissionException("interrupted while waiting for the job's plugins to be installed", e);
        }
        for (NodeJob j : jobs.values()) {
            if (j.name().equals(graph.name()) && !j.status().isTerminal()) {
                throw new JobConflictException(alreadyRunning(j));
            }
        }
        NodeJob job = new NodeJob(newId(), graph, clock);
        JobHandle handle;
        try {
            handle = engine.submit(graph, job);
        } catch (IllegalArgumentException e) {
            String message = e.getMessage() == null ? e.toString() : e.getMessage();
            if (message.contains("already running")) {
                throw new JobConflictException(message); // lost a race with another submit of the name
            }
            throw new JobSubmissionException("cannot submit job " + graph.name() + ": " + message, e);
        }
        job.attach(handle);
        jobs.put(job.id(), job);
        LOG.info("Submitted job {} as {} ({} operators)", graph.name(), job.id(), graph.vertices().size());
        return job;
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
