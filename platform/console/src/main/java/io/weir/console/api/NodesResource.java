package io.weir.console.api;

import io.weir.console.ConsoleOptions;
import io.weir.console.cluster.ClusterView;
import io.weir.console.node.NodeClient;
import io.weir.console.node.NodeErrorException;
import io.weir.console.node.NodeRegistry;
import io.weir.console.poll.JobPoller;
import io.weir.console.poll.NodeStatus;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/** The configured nodes, their plugins and cluster; plugin upload for operators. */
@Path("nodes")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class NodesResource {
    private static final Logger LOG = LoggerFactory.getLogger(NodesResource.class);

    @Inject
    NodeRegistry nodes;
    @Inject
    JobPoller poller;

    /** @return each configured node: name, URL, up or down (with the reason), version, as of the newest poll */
    @GET
    @Operation(summary = "The configured nodes, up or down, as of the newest poll")
    public List<NodeStatus> all() {
        return poller.snapshot().nodes();
    }

    /**
     * @return the node's {@code GET /plugins} answer: {@code {plugins: [{bundle, version, state, file, types: [{name, kind,
     *         settings}], error, jobs: [{id, name}]}]}}
     */
    @GET
    @Path("{node}/plugins")
    @Operation(summary = "The node's installed plugins")
    public JsonObject plugins(@PathParam("node") String node) {
        return nodes.get(node).call(api -> api.plugins());
    }

    /**
     * @return {@code {"available": true, "cluster": <ClusterView#toJson()>}} (members, leader, quorum, jobs per member and
     *         every cluster job with its owner), or {@code {"available": false}} for a standalone node (it answers 404)
     */
    @GET
    @Path("{node}/cluster")
    @Operation(summary = "The node's cluster (members, leader, jobs per member), if it runs in one")
    public JsonObject cluster(@PathParam("node") String node) {
        NodeClient client = nodes.get(node);
        JsonObject cluster;
        try {
            cluster = client.call(api -> api.cluster());
        } catch (NodeErrorException e) {
            if (e.status() == 404) {
                return Json.createObjectBuilder().add("available", false).build();
            }
            throw e;
        }
        JsonArray jobs = client.callForArray(api -> api.clusterJobs());
        try {
            return Json.createObjectBuilder().add("available", true).add("cluster", ClusterView.from(cluster, jobs).toJson()).build();
        } catch (IllegalArgumentException e) {
            throw new NodeErrorException(502, "node '" + node + "': " + e.getMessage());
        }
    }

    /**
     * Installs a plugin jar on the node through its {@code POST /plugins} and passes its answer on: 201 with the plugin
     * as in {@code GET /plugins} (state {@code ACTIVE}, or its {@code error}), 202 when it has not settled yet; the node's
     * 400 (not a plugin bundle, bad file name), 409 (file exists, use replace), 413 (too large) with its message.
     *
     * @param file the jar's file name in the node's {@code plugins/}, e.g. {@code my-plugin-1.0.jar}; absent: the node
     *        names it {@code BUNDLE-VERSION.jar}
     * @param replace whether to replace a file of that name
     * @param jar the jar's bytes, not empty
     * @return the node's status and answer; 501 with an explanation when the node has no plugin upload (it answers 404)
     * @throws IllegalArgumentException (400) for an empty body
     */
    @POST
    @Path("{node}/plugins")
    @Consumes({"application/java-archive", MediaType.APPLICATION_OCTET_STREAM})
    @RolesAllowed(ConsoleOptions.OPERATOR)
    @SecurityRequirement(name = "console-jwt")
    @Operation(summary = "Upload a plugin jar to the node (operator)")
    public Response upload(@PathParam("node") String node, @QueryParam("file") String file, @QueryParam("replace") Boolean replace,
            byte[] jar) {
        if (jar == null || jar.length == 0) {
            throw new IllegalArgumentException("the request body must be the plugin jar; it is empty");
        }
        NodeClient client = nodes.get(node);
        try {
            NodeClient.Answer answer = client.exchange(api -> api.uploadPlugin(client.authorization(), file, replace, jar));
            LOG.info("uploaded plugin {} ({} bytes) to node '{}': {} state {} error {}", file, jar.length, node, answer.status(),
                    answer.body().getString("state", "?"), answer.body().get("error"));
            return Response.status(answer.status()).entity(answer.body()).build();
        } catch (NodeErrorException e) {
            if (e.status() == 404 || e.status() == 405) {
                return Errors.of(501, "node '" + node + "' does not accept plugin uploads (POST /plugins answered " + e.status()
                        + "): it runs a Weir version without hot plugin install; copy the jar into the node's plugins/ directory instead");
            }
            throw e;
        }
    }
}
