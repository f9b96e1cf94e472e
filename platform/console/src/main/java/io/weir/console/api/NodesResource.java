package io.weir.console.api;

import io.weir.console.ConsoleOptions;
import io.weir.console.node.NodeClient;
import io.weir.console.node.NodeErrorException;
import io.weir.console.node.NodeRegistry;
import io.weir.console.poll.JobPoller;
import io.weir.console.poll.NodeStatus;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
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

    /** @return the node's {@code GET /plugins} answer (types, kinds, bundles, settings) */
    @GET
    @Path("{node}/plugins")
    @Operation(summary = "The node's installed plugins")
    public JsonObject plugins(@PathParam("node") String node) {
        return nodes.get(node).call(api -> api.plugins());
    }

    /**
     * @return {@code {"available": true, "cluster": <the node's GET /cluster>}}, or {@code {"available": false}} for a
     *         node that runs without a cluster (it answers 404)
     */
    @GET
    @Path("{node}/cluster")
    @Operation(summary = "The node's cluster (members, leader, jobs per member), if it runs in one")
    public JsonObject cluster(@PathParam("node") String node) {
        try {
            return Json.createObjectBuilder().add("available", true).add("cluster", nodes.get(node).call(api -> api.cluster())).build();
        } catch (NodeErrorException e) {
            if (e.status() == 404) {
                return Json.createObjectBuilder().add("available", false).build();
            }
            throw e;
        }
    }

    /**
     * Installs a plugin jar on the node ({@code POST /plugins} of the node).
     *
     * @param name the jar's file name, e.g. {@code my-plugin-1.0.jar}
     * @param jar the jar's bytes
     * @return the node's answer; 501 with an explanation when the node has no plugin upload (it answers 404)
     */
    @POST
    @Path("{node}/plugins")
    @Consumes({"application/java-archive", MediaType.APPLICATION_OCTET_STREAM})
    @RolesAllowed(ConsoleOptions.OPERATOR)
    @SecurityRequirement(name = "console-jwt")
    @Operation(summary = "Upload a plugin jar to the node (operator)")
    public Response upload(@PathParam("node") String node, @QueryParam("name") String name, byte[] jar) {
        if (name == null || !name.matches("[A-Za-z0-9._-]+\\.jar")) {
            throw new IllegalArgumentException("name must be the jar's file name (letters, digits, '.', '_', '-', ending in .jar), got " + name);
        }
        if (jar == null || jar.length == 0) {
            throw new IllegalArgumentException("the request body must be the plugin jar; it is empty");
        }
        NodeClient client = nodes.get(node);
        try {
            JsonObject answer = client.call(api -> api.uploadPlugin(client.authorization(), name, jar));
            LOG.info("uploaded plugin {} ({} bytes) to node '{}'", name, jar.length, node);
            return Response.ok(answer).build();
        } catch (NodeErrorException e) {
            if (e.status() == 404 || e.status() == 405) {
                return Errors.of(501, "node '" + node + "' does not accept plugin uploads (POST /plugins answered " + e.status()
                        + "): it runs a Weir version without hot plugin install; copy the jar into the node's plugins/ directory instead");
            }
            throw e;
        }
    }
}
