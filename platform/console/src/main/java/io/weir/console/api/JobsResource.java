package io.weir.console.api;

import io.weir.console.ConsoleOptions;
import io.weir.console.node.NodeClient;
import io.weir.console.node.NodeRegistry;
import io.weir.console.poll.JobPoller;
import io.weir.console.poll.JobRoute;
import io.weir.console.poll.Snapshot;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;

import java.util.Optional;

/**
 * Jobs: reading needs no login; the actions ({@code POST .../checkpoint|savepoint|stop|cancel}) need a token of a user
 * with role {@value ConsoleOptions#OPERATOR} (no token → 401, another role → 403) and run through {@link JobActions}.
 * (One resource class for both: JAX-RS picks the root resource by path before the method, so a second class on
 * {@code jobs/{node}/{job}} would hide the GET.)
 */
@Path("jobs")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class JobsResource {
    @Inject
    JobPoller poller;
    @Inject
    NodeRegistry nodes;
    @Inject
    JobDetails details;
    @Inject
    JobActions actions;
    @Context
    SecurityContext security;

    /** @return the newest poll: {@code takenAt}, every node's status and every job's row (the jobs page) */
    @GET
    @Operation(summary = "Every job of every configured node, with the last checkpoint, records/s and restarts (as of the newest poll)")
    public Snapshot all() {
        return poller.snapshot();
    }

    /**
     * @param node the node's name in the configuration (404 when unknown)
     * @param job the job's id or unique name on that node (404 when unknown)
     * @param cid the checkpoint for the subtask table and diagnosis; default the latest completed one
     * @return the job page's data (see {@link JobDetails#page})
     */
    @GET
    @Path("{node}/{job}")
    @Operation(summary = "One job: operator graph, checkpoint history and options, per-subtask table of a checkpoint, diagnosis")
    public JsonObject one(@PathParam("node") String node, @PathParam("job") String job, @QueryParam("checkpoint") Long cid) {
        if (cid != null && cid < 0) {
            throw new IllegalArgumentException("checkpoint must be a checkpoint id >= 0, got " + cid);
        }
        return details.page(route(node, job), job, Optional.ofNullable(cid));
    }

    /** @return {@code {"checkpointId": n}} once the triggered checkpoint completed */
    @POST
    @Path("{node}/{job}/checkpoint")
    @RolesAllowed(ConsoleOptions.OPERATOR)
    @SecurityRequirement(name = "console-jwt")
    @Operation(summary = "Trigger a checkpoint and wait for it (operator)")
    public JsonObject checkpoint(@PathParam("node") String node, @PathParam("job") String job) {
        return actions.checkpoint(route(node, job), job, user());
    }

    /** @return {@code {"location": DIR}}, the savepoint's directory; the job keeps running */
    @POST
    @Path("{node}/{job}/savepoint")
    @RolesAllowed(ConsoleOptions.OPERATOR)
    @SecurityRequirement(name = "console-jwt")
    @Operation(summary = "Take a savepoint and wait for it (operator)")
    public JsonObject savepoint(@PathParam("node") String node, @PathParam("job") String job) {
        return actions.savepoint(route(node, job), job, user());
    }

    /** @return {@code {"location": DIR}}: stop-with-savepoint, the job ends FINISHED */
    @POST
    @Path("{node}/{job}/stop")
    @RolesAllowed(ConsoleOptions.OPERATOR)
    @SecurityRequirement(name = "console-jwt")
    @Operation(summary = "Stop the job with a savepoint and wait for it (operator)")
    public JsonObject stop(@PathParam("node") String node, @PathParam("job") String job) {
        return actions.stop(route(node, job), job, user());
    }

    /** @return {@code {"cancelled": true}} once the node accepted the cancel */
    @POST
    @Path("{node}/{job}/cancel")
    @RolesAllowed(ConsoleOptions.OPERATOR)
    @SecurityRequirement(name = "console-jwt")
    @Operation(summary = "Cancel the job (operator)")
    public JsonObject cancel(@PathParam("node") String node, @PathParam("job") String job) {
        return actions.cancel(route(node, job), job, user());
    }

    /**
     * The configured node to ask: {@code node}, or for a cluster job whose named member is down, the member the Jobs
     * table now lists it through ({@link JobRoute}).
     *
     * @throws jakarta.ws.rs.NotFoundException (404) when {@code node} is not configured
     */
    private NodeClient route(String node, String job) {
        nodes.get(node); // 404 for a node that is not configured, also when another one would answer
        return nodes.get(JobRoute.nodeFor(poller.snapshot(), node, job));
    }

    private String user() {
        return security.getUserPrincipal() == null ? "?" : security.getUserPrincipal().getName();
    }
}
