package io.weir.rest.resource;

import io.weir.rest.node.JobOperations;
import io.weir.rest.node.NodeJob;
import io.weir.rest.node.NodeJobs;
import io.weir.rest.node.NodeJobsComponent;
import io.weir.rest.node.NodeProperties;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsExtensionSelect;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsResource;
import io.weir.rest.security.BearerTokenFilter;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * {@code /jobs}: list, inspect, submit and cancel the node's jobs (Flink's paths and field names;
 * docs/rest-api.md). {@code :id} is a job id or a job name unique among the node's jobs. Failures
 * are thrown and become JSON errors through {@link ApiExceptionMapper}.
 *
 * <p>Thread-safe: stateless over the thread-safe {@link NodeJobs}.
 */
@Component(service = JobsResource.class, immediate = true)
@JakartarsResource
@JakartarsExtensionSelect("(osgi.jakartars.name=" + BearerTokenFilter.NAME + ")")
@Path("/jobs")
@Produces(MediaType.APPLICATION_JSON)
public final class JobsResource {
    /** The job option naming the savepoint to restore from (Flink's key, as {@code weir run --from-savepoint} sets). */
    static final String SAVEPOINT_PATH_KEY = "execution.savepoint.path";
    /** The job option of {@code allowNonRestoredState} (Flink's key). */
    static final String IGNORE_UNCLAIMED_STATE_KEY = "execution.savepoint.ignore-unclaimed-state";
    /** Largest job spec accepted, bytes. */
    static final int MAX_SPEC_BYTES = 1 << 20;

    private final NodeJobs jobs;
    private final LongSupplier clock;
    private final java.nio.file.Path defaultBaseDir;
    private final JobOperations operations;
    /** Present only on a node started with {@code --cluster}: then {@code POST /jobs} submits to the cluster. */
    @Reference(cardinality = org.osgi.service.component.annotations.ReferenceCardinality.OPTIONAL,
            policy = org.osgi.service.component.annotations.ReferencePolicy.DYNAMIC)
    private volatile io.weir.core.cluster.ClusterJobs cluster;

    /**
     * @param context this bundle's context (for {@link NodeProperties#DATA_DIR})
     * @param node the node's jobs
     */
    @Activate
    public JobsResource(BundleContext context, @Reference NodeJobsComponent node) {
        this(node.jobs(), System::currentTimeMillis, NodeProperties.dataDir(context),
                new JobOperations(node.jobs(), NodeProperties.savepointDir(context)));
    }

    /**
     * @param jobs the node's jobs
     * @param clock ms since the epoch
     * @param defaultBaseDir where relative paths of a job spec submitted without {@code base-dir} resolve
     * @param operations checkpoints, savepoints and stops of the same jobs
     */
    public JobsResource(NodeJobs jobs, LongSupplier clock, java.nio.file.Path defaultBaseDir, JobOperations operations) {
        this.jobs = jobs;
        this.clock = clock;
        this.defaultBaseDir = defaultBaseDir;
        this.operations = operations;
    }

    /** @return {@code GET /jobs}: {@code {"jobs":[{"id":..,"status":..}]}}, newest first */
    @GET
    public Views.JobList list() {
        return new Views.JobList(jobs.list().stream().map(j -> new Views.JobIdAndStatus(j.id(), j.status().name())).toList());
    }

    /** @return {@code GET /jobs/overview}: every job with name, state, times and its latest checkpoint */
    @GET
    @Path("overview")
    public Views.JobsOverview overview() {
        return new Views.JobsOverview(jobs.list().stream().map(JobViews::overview).toList());
    }

    /**
     * @param id job id or unique name
     * @return {@code GET /jobs/:id}
     * @throws io.weir.rest.node.JobNotFoundException (404) if there is no such job
     */
    @GET
    @Path("{id}")
    public Views.JobDetails job(@PathParam("id") String id) {
        return JobViews.details(jobs.find(id), clock.getAsLong());
    }

    /**
     * @param id job id or unique name
     * @return {@code GET /jobs/:id/checkpoints}: counts, latest, history (newest first, at most 10)
     * @throws io.weir.rest.node.JobNotFoundException (404) if there is no such job
     */
    @GET
    @Path("{id}/checkpoints")
    public Views.Checkpoints checkpoints(@PathParam("id") String id) {
        return JobViews.checkpoints(jobs.find(id));
    }

    /**
     * @param id job id or unique name
     * @return {@code GET /jobs/:id/checkpoints/config}: the job's checkpointing options
     * @throws io.weir.rest.node.JobNotFoundException (404) if there is no such job
     */
    @GET
    @Path("{id}/checkpoints/config")
    public Views.CheckpointConfig checkpointConfig(@PathParam("id") String id) {
        return JobViews.config(jobs.find(id));
    }

    /**
     * @param id job id or unique name
     * @param checkpointId a checkpoint id (decimal)
     * @return {@code GET /jobs/:id/checkpoints/details/:cid}: the checkpoint with its per-vertex totals in {@code tasks}
     * @throws ApiErrors.BadRequestException (400) if {@code checkpointId} is not a non-negative number
     * @throws io.weir.rest.node.JobNotFoundException (404) if there is no such job, or the checkpoint is not among the
     *         newest {@value io.weir.rest.node.CheckpointHistory#DEFAULT_CAPACITY} of its history
     */
    @GET
    @Path("{id}/checkpoints/details/{checkpointId}")
    public Views.CheckpointDetails checkpointDetails(@PathParam("id") String id, @PathParam("checkpointId") String checkpointId) {
        long cid = CheckpointDetailViews.parseCheckpointId(checkpointId);
        return CheckpointDetailViews.details(jobs.find(id), cid);
    }

    /**
     * @param id job id or unique name
     * @param checkpointId a checkpoint id (decimal)
     * @param vertexId a vertex (operator) id of the job
     * @return {@code GET /jobs/:id/checkpoints/details/:cid/subtasks/:vertexid}: each subtask of the vertex and a
     *         min/max/avg summary
     * @throws ApiErrors.BadRequestException (400) if {@code checkpointId} is not a non-negative number
     * @throws io.weir.rest.node.JobNotFoundException (404) if there is no such job, checkpoint (as in
     *         {@link #checkpointDetails}) or vertex, or the checkpoint failed (no subtask data)
     */
    @GET
    @Path("{id}/checkpoints/details/{checkpointId}/subtasks/{vertexId}")
    public Views.TaskCheckpointDetails checkpointSubtasks(@PathParam("id") String id,
            @PathParam("checkpointId") String checkpointId, @PathParam("vertexId") String vertexId) {
        long cid = CheckpointDetailViews.parseCheckpointId(checkpointId);
        NodeJob job = jobs.find(id);
        if (job.graph().vertices().stream().noneMatch(v -> v.id().equals(vertexId))) {
            throw new io.weir.rest.node.JobNotFoundException("job " + job.name() + " (" + job.id() + ") has no vertex '" + vertexId
                    + "'; its vertices are " + job.graph().vertices().stream().map(v -> v.id()).toList());
        }
        return CheckpointDetailViews.subtasks(job, cid, vertexId);
    }

    /**
     * @param id job id or unique name
     * @return {@code GET /jobs/:id/exceptions}: the newest failure as {@code root-exception}, and the newest
     *         {@value io.weir.rest.node.ExceptionHistory#DEFAULT_CAPACITY} failures (restart causes and the final cause)
     * @throws io.weir.rest.node.JobNotFoundException (404) if there is no such job
     */
    @GET
    @Path("{id}/exceptions")
    public Views.JobExceptions exceptions(@PathParam("id") String id) {
        return JobViews.exceptions(jobs.find(id));
    }

    /**
     * {@code POST /jobs}: the body is the raw request entity (read here, not by a JSON-B reader, so the
     * job parser sees the text and reports errors by field path).
     *
     * @param request the request, for its entity stream
     * @param baseDir absolute directory relative paths in the spec resolve against; default the node's data directory
     * @param sets {@code key=value} configuration overrides, as {@code weir run --set}
     * @param savepointPath a savepoint (or retained checkpoint) directory inside the node's savepoint directory to
     *        restore from (Flink's name), or null
     * @param allowNonRestoredState with {@code savepointPath}: drop state of operators the job lacks instead of refusing
     * @return 202 with {@code {"jobid":..,"name":..}} and a {@code Location} header
     */
    @POST
    public Response submitRequest(@Context ContainerRequestContext request, @QueryParam("base-dir") String baseDir,
            @QueryParam("set") List<String> sets, @QueryParam("savepointPath") String savepointPath,
            @QueryParam("allowNonRestoredState") boolean allowNonRestoredState) {
        return submit(readSpec(request), baseDir, sets, savepointPath, allowNonRestoredState);
    }

    /**
     * {@link #submitRequest} with the body already read.
     *
     * @param spec the job spec (JSON object text)
     * @param baseDir see {@link #submitRequest}; null for the default
     * @param sets see {@link #submitRequest}; null for none
     * @return 202 with {@code {"jobid":..,"name":..}}
     * @throws ApiErrors.BadRequestException (400) for a relative {@code base-dir} or a malformed {@code set}
     * @throws io.weir.rest.node.JobSubmissionException (400) for an invalid spec, naming the field
     * @throws io.weir.rest.node.JobConflictException (409) if a job of that name is running
     */
    public Response submit(String spec, String baseDir, List<String> sets) {
        return submit(spec, baseDir, sets, null, false);
    }

    /**
     * {@link #submit(String, String, List)} restoring from a savepoint, as {@code weir run --from-savepoint}.
     *
     * @param spec see {@link #submitRequest}
     * @param baseDir see {@link #submitRequest}
     * @param sets see {@link #submitRequest}
     * @param savepointPath see {@link #submitRequest}; null or blank for none
     * @param allowNonRestoredState see {@link #submitRequest}
     * @return 202 with {@code {"jobid":..,"name":..}}
     * @throws ApiErrors.BadRequestException (400) as {@link #submit(String, String, List)}, or for
     *         {@code allowNonRestoredState} without {@code savepointPath}
     * @throws io.weir.rest.node.PathNotAllowedException (403) if the savepoint path (also one given as
     *         {@code set=execution.savepoint.path=..} or in the spec's {@code config}) lies outside the node's
     *         savepoint directory, also through a symbolic link
     */
    public Response submit(String spec, String baseDir, List<String> sets, String savepointPath, boolean allowNonRestoredState) {
        Map<String, String> overrides = overrides(sets);
        String restore = savepointPath != null && !savepointPath.isBlank() ? savepointPath : overrides.get(SAVEPOINT_PATH_KEY);
        if (restore == null) {
            restore = specConfig(spec, SAVEPOINT_PATH_KEY); // checked like the others; the override then wins over it
        }
        if (restore != null) {
            overrides.put(SAVEPOINT_PATH_KEY, operations.allowedSavepointPath(restore).toString());
            if (allowNonRestoredState) {
                overrides.put(IGNORE_UNCLAIMED_STATE_KEY, "true");
            }
        } else if (allowNonRestoredState) {
            throw new ApiErrors.BadRequestException("allowNonRestoredState needs savepointPath");
        }
        java.nio.file.Path base = defaultBaseDir;
        if (baseDir != null && !baseDir.isBlank()) {
            base = java.nio.file.Path.of(baseDir);
            if (!base.isAbsolute()) {
                throw new ApiErrors.BadRequestException("base-dir '" + baseDir + "' must be an absolute directory");
            }
        }
        io.weir.core.cluster.ClusterJobs clusterJobs = cluster;
        if (clusterJobs != null) {
            return submitToCluster(clusterJobs, spec, base.normalize(), overrides);
        }
        NodeJob job = jobs.submit(spec, base.normalize(), overrides);
        return Response.accepted(new Views.Submitted(job.id(), job.name())).location(URI.create("/jobs/" + job.id())).build();
    }

    /** On a cluster node: the job goes to the cluster's job store; its id is the cluster job's, on every member. */
    private static Response submitToCluster(io.weir.core.cluster.ClusterJobs clusterJobs, String spec, java.nio.file.Path base,
            Map<String, String> overrides) {
        io.weir.core.cluster.ClusterJobEntry job;
        try {
            job = clusterJobs.submit(spec, base, overrides);
        } catch (io.weir.core.job.InvalidJobException e) {
            throw new io.weir.rest.node.JobSubmissionException(e.getMessage(), e);
        } catch (IllegalStateException e) {
            throw new io.weir.rest.node.JobConflictException(e.getMessage());
        }
        return Response.accepted(new Views.Submitted(job.id(), job.name())).location(URI.create("/jobs/" + job.id())).build();
    }

    /**
     * @return the string value of {@code key} in the spec's {@code config} object, or null if the spec is not a
     *         JSON object (the job parser then reports it) or has no such string value
     */
    private static String specConfig(String spec, String key) {
        try (jakarta.json.JsonReader reader = jakarta.json.Json.createReader(new java.io.StringReader(spec))) {
            jakarta.json.JsonValue root = reader.readValue();
            if (root instanceof jakarta.json.JsonObject o && o.get("config") instanceof jakarta.json.JsonObject config
                    && config.get(key) instanceof jakarta.json.JsonString value) {
                return value.getString();
            }
        } catch (jakarta.json.JsonException e) {
            // not JSON: the job parser says what is wrong with it
        }
        return null;
    }

    /**
     * {@code PATCH /jobs/:id?mode=cancel}: cancels the job (Flink's call).
     *
     * @param id job id or unique name
     * @param mode must be {@code cancel}
     * @return 202 without a body; the job reaches CANCELED shortly after
     * @throws ApiErrors.BadRequestException (400) for another mode
     * @throws io.weir.rest.node.JobNotFoundException (404) if there is no such job
     * @throws io.weir.rest.node.JobConflictException (409) if it has already ended
     */
    @PATCH
    @Path("{id}")
    public Response cancel(@PathParam("id") String id, @QueryParam("mode") String mode) {
        if (!"cancel".equals(mode)) {
            throw new ApiErrors.BadRequestException("mode must be 'cancel' (PATCH /jobs/:id?mode=cancel), got "
                    + (mode == null ? "none" : "'" + mode + "'"));
        }
        jobs.cancel(id);
        return Response.accepted().build();
    }

    /**
     * {@code POST /jobs/:id/checkpoints}: triggers a checkpoint through the job's request decider (Flink 1.19's call).
     *
     * @param id job id or unique name
     * @return 202 with {@code {"request-id":..}}; the outcome at {@code GET /jobs/:id/checkpoints/:request-id}
     * @throws io.weir.rest.node.JobNotFoundException (404) if there is no such job
     * @throws io.weir.rest.node.JobConflictException (409) if it is not RUNNING
     */
    @POST
    @Path("{id}/checkpoints")
    public Response triggerCheckpoint(@PathParam("id") String id) {
        return Response.accepted(new Views.TriggerId(operations.checkpoint(id))).build();
    }

    /**
     * @param id job id or unique name
     * @param requestId the id {@code POST /jobs/:id/checkpoints} answered
     * @return {@code {"status":{"id":"IN_PROGRESS"}}} or {@code {"status":{"id":"COMPLETED"},"operation":{"checkpointId":N}}}
     *         or {@code ..."operation":{"failure-cause":{..}}}
     * @throws io.weir.rest.node.JobNotFoundException (404) if there is no such job or checkpoint request
     */
    @GET
    @Path("{id}/checkpoints/{requestId}")
    public Views.OperationStatus checkpointStatus(@PathParam("id") String id, @PathParam("requestId") String requestId) {
        return OperationRequests.status(operations.status(id, requestId, JobOperations.Kind.CHECKPOINT));
    }

    /** {@code POST /jobs/:id/savepoints}: the body read from the request; see {@link #triggerSavepoint}. */
    @POST
    @Path("{id}/savepoints")
    public Response triggerSavepointRequest(@PathParam("id") String id, @Context ContainerRequestContext request) {
        return triggerSavepoint(id, readBody(request));
    }

    /**
     * Triggers a savepoint, or with {@code cancel-job} a stop-with-savepoint (Flink's savepoint-then-cancel; Weir
     * stops the job with the savepoint, so two-phase-commit sinks commit it).
     *
     * @param id job id or unique name
     * @param body {@code {"target-directory": DIR, "cancel-job": false}}, both optional; DIR absolute or relative to
     *        the node's savepoint directory and inside it
     * @return 202 with {@code {"request-id":..}}; the outcome at {@code GET /jobs/:id/savepoints/:request-id}
     * @throws ApiErrors.BadRequestException (400) for a malformed body
     * @throws io.weir.rest.node.PathNotAllowedException (403) if the target lies outside the savepoint directory
     * @throws io.weir.rest.node.JobNotFoundException (404) if there is no such job
     * @throws io.weir.rest.node.JobConflictException (409) if it is not RUNNING
     */
    public Response triggerSavepoint(String id, String body) {
        OperationRequests.SavepointRequest r = OperationRequests.parse(body, "target-directory", "cancel-job");
        String requestId = r.flag() ? operations.stop(id, r.target(), false) : operations.savepoint(id, r.target());
        return Response.accepted(new Views.TriggerId(requestId)).build();
    }

    /**
     * @param id job id or unique name
     * @param requestId the id {@code POST /jobs/:id/savepoints} or {@code /stop} answered
     * @return {@code {"status":{"id":"IN_PROGRESS"}}} or {@code {"status":{"id":"COMPLETED"},"operation":{"location":"/.."}}}
     *         or {@code ..."operation":{"failure-cause":{..}}}
     * @throws io.weir.rest.node.JobNotFoundException (404) if there is no such job or savepoint request
     */
    @GET
    @Path("{id}/savepoints/{requestId}")
    public Views.OperationStatus savepointStatus(@PathParam("id") String id, @PathParam("requestId") String requestId) {
        return OperationRequests.status(operations.status(id, requestId, JobOperations.Kind.SAVEPOINT, JobOperations.Kind.STOP));
    }

    /** {@code POST /jobs/:id/stop}: the body read from the request; see {@link #stop}. */
    @POST
    @Path("{id}/stop")
    public Response stopRequest(@PathParam("id") String id, @Context ContainerRequestContext request) {
        return stop(id, readBody(request));
    }

    /**
     * Stops the job with a final savepoint; the job ends FINISHED.
     *
     * @param id job id or unique name
     * @param body {@code {"targetDirectory": DIR, "drain": false}} (Flink's names), both optional; DIR as in
     *        {@link #triggerSavepoint}
     * @return 202 with {@code {"request-id":..}}; the outcome at {@code GET /jobs/:id/savepoints/:request-id}
     * @throws ApiErrors.BadRequestException (400) for a malformed body
     * @throws io.weir.rest.node.PathNotAllowedException (403) if the target lies outside the savepoint directory
     * @throws io.weir.rest.node.JobNotFoundException (404) if there is no such job
     * @throws io.weir.rest.node.JobConflictException (409) if it is not RUNNING
     */
    public Response stop(String id, String body) {
        OperationRequests.SavepointRequest r = OperationRequests.parse(body, "targetDirectory", "drain");
        return Response.accepted(new Views.TriggerId(operations.stop(id, r.target(), r.flag()))).build();
    }

    static Map<String, String> overrides(List<String> sets) {
        Map<String, String> result = new LinkedHashMap<>();
        if (sets == null) {
            return result;
        }
        for (String pair : sets) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new ApiErrors.BadRequestException("set '" + pair + "' is not key=value (e.g. set=execution.checkpointing.interval%3D5s)");
            }
            result.put(pair.substring(0, eq).trim(), pair.substring(eq + 1));
        }
        return result;
    }

    private static String readSpec(ContainerRequestContext request) {
        return readBody(request, "the job spec", "docs/job-format.md");
    }

    private static String readBody(ContainerRequestContext request) {
        return readBody(request, "the request body", "docs/rest-api.md");
    }

    private static String readBody(ContainerRequestContext request, String what, String doc) {
        try (InputStream in = request.getEntityStream()) {
            byte[] bytes = in == null ? new byte[0] : in.readNBytes(MAX_SPEC_BYTES + 1);
            if (bytes.length > MAX_SPEC_BYTES) {
                throw new ApiErrors.BadRequestException(what + " is larger than " + MAX_SPEC_BYTES + " bytes");
            }
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new ApiErrors.BadRequestException(what + " is not UTF-8 text; send a JSON object (" + doc + ")");
        } catch (IOException e) {
            throw new ApiErrors.BadRequestException("cannot read the request body: " + e.getMessage());
        }
    }
}
