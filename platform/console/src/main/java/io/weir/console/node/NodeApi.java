package io.weir.console.node;

import jakarta.json.JsonObject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * The node's REST API (docs/rest-api.md) as a MicroProfile Rest Client interface. Every method answers the raw
 * {@link Response} (the default exception mapper is disabled): {@link NodeClient} turns statuses and connection failures
 * into the console's errors. {@code auth} is the full {@code Authorization} header value ({@code Bearer <token>}).
 */
@Produces(MediaType.APPLICATION_JSON)
public interface NodeApi {
    /** {@code GET /overview}: job counts and the node's version. */
    @GET @Path("overview") Response overview();

    /** {@code GET /jobs/overview}: every job with name, state, times and last checkpoint. */
    @GET @Path("jobs/overview") Response jobsOverview();

    /** {@code GET /jobs/:id}: vertices with parallelism, inputs and records sent; restarts. */
    @GET @Path("jobs/{id}") Response job(@PathParam("id") String id);

    /** {@code GET /jobs/:id/checkpoints}: counts, latest and the newest 10 checkpoints. */
    @GET @Path("jobs/{id}/checkpoints") Response checkpoints(@PathParam("id") String id);

    /** {@code GET /jobs/:id/checkpoints/config}: interval, min pause, unaligned, … */
    @GET @Path("jobs/{id}/checkpoints/config") Response checkpointConfig(@PathParam("id") String id);

    /** {@code GET /jobs/:id/checkpoints/details/:cid}: totals and the checkpoint's tasks. */
    @GET @Path("jobs/{id}/checkpoints/details/{cid}") Response checkpointDetails(@PathParam("id") String id, @PathParam("cid") long cid);

    /** {@code GET /jobs/:id/checkpoints/details/:cid/subtasks/:vertex}: each subtask of one task. */
    @GET @Path("jobs/{id}/checkpoints/details/{cid}/subtasks/{vertex}")
    Response subtasks(@PathParam("id") String id, @PathParam("cid") long cid, @PathParam("vertex") String vertex);

    /** {@code GET /plugins}: every plugin: bundle, version, state, file, types, error, jobs using it. */
    @GET @Path("plugins") Response plugins();

    /** {@code GET /cluster}: members, leader, jobs per member (404 on a node without HA). */
    @GET @Path("cluster") Response cluster();

    /** {@code GET /cluster/jobs}: every job of the cluster with status and owner, a JSON array (404 without HA). */
    @GET @Path("cluster/jobs") Response clusterJobs();

    /** {@code POST /jobs/:id/checkpoints}: triggers a checkpoint; 202 with a request id. */
    @POST @Path("jobs/{id}/checkpoints") Response triggerCheckpoint(@HeaderParam("Authorization") String auth, @PathParam("id") String id);

    /** {@code GET /jobs/:id/checkpoints/:rid}: outcome of a triggered checkpoint. */
    @GET @Path("jobs/{id}/checkpoints/{rid}") Response checkpointStatus(@PathParam("id") String id, @PathParam("rid") String requestId);

    /** {@code POST /jobs/:id/savepoints}: triggers a savepoint; 202 with a request id. */
    @POST @Path("jobs/{id}/savepoints") @Consumes(MediaType.APPLICATION_JSON)
    Response triggerSavepoint(@HeaderParam("Authorization") String auth, @PathParam("id") String id, JsonObject body);

    /** {@code POST /jobs/:id/stop}: stop-with-savepoint; 202 with a request id. */
    @POST @Path("jobs/{id}/stop") @Consumes(MediaType.APPLICATION_JSON)
    Response stop(@HeaderParam("Authorization") String auth, @PathParam("id") String id, JsonObject body);

    /** {@code GET /jobs/:id/savepoints/:rid}: outcome of a savepoint or stop. */
    @GET @Path("jobs/{id}/savepoints/{rid}") Response savepointStatus(@PathParam("id") String id, @PathParam("rid") String requestId);

    /** {@code PATCH /jobs/:id?mode=cancel}: cancels the job; 202. */
    @PATCH @Path("jobs/{id}") Response cancel(@HeaderParam("Authorization") String auth, @PathParam("id") String id, @QueryParam("mode") String mode);

    /**
     * {@code POST /plugins?file=F[&replace=true]}: installs a plugin jar; 201 with the plugin as in {@code GET /plugins}, 202
     * when it has not settled within the node's wait, 400 not a plugin bundle, 409 the file exists, 413 too large (404 on a
     * node without plugin upload).
     */
    @POST @Path("plugins") @Consumes("application/java-archive")
    Response uploadPlugin(@HeaderParam("Authorization") String auth, @QueryParam("file") String fileName,
            @QueryParam("replace") Boolean replace, byte[] jar);
}
