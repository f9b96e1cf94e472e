package io.weir.console.api;

import io.weir.console.ConsoleOptions;
import io.weir.console.node.NodeApi;
import io.weir.console.node.NodeClient;
import io.weir.console.node.NodeErrorException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.config.Config;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

import java.util.function.Function;

/**
 * Runs an action on a job through the node's API with the node's token: triggers it, then polls the node's status path
 * every 200 ms until it completed, at most {@value ConsoleOptions#ACTION_WAIT_S} s (then 504). Logs each action with the
 * console user who asked. Stateless.
 */
@ApplicationScoped
public class JobActions {
    private static final Logger LOG = LoggerFactory.getLogger(JobActions.class);
    private static final long STATUS_POLL_MS = 200;

    @Inject
    Config config;

    /** @return {@code {"checkpointId": n}} once the checkpoint completed */
    public JsonObject checkpoint(NodeClient n, String job, String user) {
        JsonObject op = act(n, job, "checkpoint", user, api -> api.triggerCheckpoint(n.authorization(), job),
                rid -> n.call(api -> api.checkpointStatus(job, rid)));
        return Json.createObjectBuilder().add("checkpointId", op.getJsonNumber("checkpointId")).build();
    }

    /** @return {@code {"location": DIR}}, the savepoint's directory; the job keeps running */
    public JsonObject savepoint(NodeClient n, String job, String user) {
        JsonObject op = act(n, job, "savepoint", user, api -> api.triggerSavepoint(n.authorization(), job, Json.createObjectBuilder().build()),
                rid -> n.call(api -> api.savepointStatus(job, rid)));
        return Json.createObjectBuilder().add("location", op.getString("location")).build();
    }

    /** @return {@code {"location": DIR}}: stop-with-savepoint, the job ends FINISHED */
    public JsonObject stop(NodeClient n, String job, String user) {
        JsonObject op = act(n, job, "stop", user, api -> api.stop(n.authorization(), job, Json.createObjectBuilder().build()),
                rid -> n.call(api -> api.savepointStatus(job, rid)));
        return Json.createObjectBuilder().add("location", op.getString("location")).build();
    }

    /** @return {@code {"cancelled": true}} once the node accepted the cancel (the job reaches CANCELED shortly after) */
    public JsonObject cancel(NodeClient n, String job, String user) {
        n.call(api -> api.cancel(n.authorization(), job, "cancel"));
        log("cancel", n.name(), job, user, "accepted");
        return Json.createObjectBuilder().add("cancelled", true).build();
    }

    private JsonObject act(NodeClient n, String job, String what, String user, Function<NodeApi, Response> trigger,
                           Function<String, JsonObject> status) {
        String rid = n.call(trigger).getString("request-id");
        long waitMs = config.getOptionalValue(ConsoleOptions.ACTION_WAIT_S, Long.class).orElse(ConsoleOptions.ACTION_WAIT_S_DEFAULT) * 1000;
        long deadline = System.nanoTime() + waitMs * 1_000_000;
        while (true) {
            JsonObject s = status.apply(rid);
            if ("COMPLETED".equals(s.getJsonObject("status").getString("id"))) {
                JsonObject op = s.getJsonObject("operation");
                if (op.containsKey("failure-cause")) {
                    String msg = op.getJsonObject("failure-cause").getString("message", "no message");
                    log(what, n.name(), job, user, "failed: " + msg);
                    throw new NodeErrorException(502, "node '" + n.name() + "': " + what + " of " + job + " failed: " + msg);
                }
                log(what, n.name(), job, user, "completed: " + op);
                return op;
            }
            if (System.nanoTime() > deadline) {
                throw new NodeErrorException(504, "node '" + n.name() + "': " + what + " of " + job + " did not complete within "
                        + waitMs / 1000 + " s (request " + rid + "); raise " + ConsoleOptions.ACTION_WAIT_S + " or look at the node's log");
            }
            try {
                Thread.sleep(STATUS_POLL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(what + " of " + job + " interrupted while waiting for the node", e);
            }
        }
    }

    private static void log(String what, String node, String job, String user, String outcome) {
        MDC.put("job", job);
        try {
            LOG.info("{} of job {} on node '{}' by '{}': {}", what, job, node, user, outcome);
        } finally {
            MDC.remove("job");
        }
    }
}
