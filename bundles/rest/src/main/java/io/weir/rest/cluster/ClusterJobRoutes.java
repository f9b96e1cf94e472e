package io.weir.rest.cluster;

import io.weir.core.cluster.ClusterJobEntry;
import io.weir.core.cluster.ClusterJobs;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.StringReader;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Where a {@code /jobs} request to a cluster node is answered (docs/ha.md "REST and CLI"): the lists from the
 * cluster's job store (every job of the cluster, each with its {@code node}), a request about one cluster job by the
 * member that runs it (forwarded through {@link ClusterJobs#forward}, also to this node itself, so the answer always
 * comes from the run and carries {@code node}), a cancel through the job store (so the job is never reassigned), and
 * the details of a job no member runs now (unassigned, or its owner gone) from the store. Requests about a job the
 * cluster does not know, and {@code POST /jobs}, are left to the node's own resources (empty answer).
 *
 * <p>Thread-safe: stateless over the thread-safe {@link ClusterJobs}.
 */
public final class ClusterJobRoutes {
    /** The field naming the member a job runs on (its REST URL); not in Flink's API. */
    public static final String NODE_FIELD = "node";

    private static final Logger LOG = LoggerFactory.getLogger(ClusterJobRoutes.class);

    private final ClusterJobs cluster;
    private final LongSupplier clock;

    /**
     * @param cluster the cluster's jobs
     * @param clock ms since the epoch
     */
    public ClusterJobRoutes(ClusterJobs cluster, LongSupplier clock) {
        this.cluster = cluster;
        this.clock = clock;
    }

    /**
     * @param method HTTP method
     * @param segments the path's segments after {@code jobs} (decoded), e.g. {@code []}, {@code [overview]}, {@code [ID,
     *        checkpoints]}
     * @param query the raw (encoded) query string, or null
     * @param body the request body (only read for forwarded requests), supplied on demand
     * @return the answer, or empty if the node's own resources answer the request
     */
    public Optional<ClusterJobs.Answer> route(String method, List<String> segments, String query,
            java.util.function.Supplier<String> body) {
        if (segments.isEmpty()) {
            return "GET".equals(method) ? Optional.of(json(200, list())) : Optional.empty();
        }
        if (segments.size() == 1 && "overview".equals(segments.get(0))) {
            return "GET".equals(method) ? Optional.of(json(200, overview())) : Optional.empty();
        }
        Optional<ClusterJobEntry> found = cluster.find(segments.get(0));
        if (found.isEmpty()) {
            return Optional.empty();
        }
        ClusterJobEntry job = found.get();
        if ("PATCH".equals(method) && segments.size() == 1) {
            return Optional.of(cancel(job, query));
        }
        StringBuilder path = new StringBuilder("/jobs/").append(encode(job.id()));
        for (String s : segments.subList(1, segments.size())) {
            path.append('/').append(encode(s));
        }
        if (query != null && !query.isEmpty()) {
            path.append('?').append(query);
        }
        ClusterJobs.Answer answer = null;
        if (job.ownerId() != null) {
            try {
                answer = cluster.forward(job.ownerId(), method, path.toString(), "GET".equals(method) ? null : body.get());
            } catch (IllegalStateException e) {
                LOG.info("Job {} ({}): {} {} not answered by its owner {}: {}", job.name(), job.id(), method, path, job.ownerUrl(),
                        e.getMessage());
            }
        }
        boolean details = "GET".equals(method) && segments.size() == 1;
        if (answer != null && answer.status() != 404) {
            return Optional.of(details && answer.status() == 200 ? withNode(answer, job) : answer);
        }
        if (details) {
            return Optional.of(json(200, storeDetails(job)));
        }
        if (answer != null) {
            return Optional.of(answer);
        }
        return Optional.of(error(job.ended() ? 409 : 503, "job " + job.name() + " (" + job.id() + ") "
                + (job.ended() ? "has ended (" + job.status() + ")" : "has no running owner right now (it is being moved)")
                + "; GET /jobs/" + job.id() + " shows where it is" + (job.ended() ? "" : ", try again shortly")));
    }

    private ClusterJobs.Answer cancel(ClusterJobEntry job, String query) {
        if (query == null || !query.matches("(^|.*&)mode=cancel(&.*|$)")) {
            return error(400, "mode must be 'cancel' (PATCH /jobs/:id?mode=cancel)");
        }
        try {
            cluster.cancel(job.id());
            return new ClusterJobs.Answer(202, "", "");
        } catch (IllegalArgumentException e) {
            return error(409, e.getMessage());
        }
    }

    /** @return {@code GET /jobs}: every cluster job, {@code {"jobs":[{"id","status","node"}]}} */
    private JsonObject list() {
        JsonArrayBuilder jobs = Json.createArrayBuilder();
        for (ClusterJobEntry j : cluster.jobs()) {
            jobs.add(Json.createObjectBuilder().add("id", j.id()).add("name", j.name()).add("status", j.status())
                    .add(NODE_FIELD, j.ownerUrl()));
        }
        return Json.createObjectBuilder().add("jobs", jobs).build();
    }

    /**
     * @return {@code GET /jobs/overview}: every cluster job as its owner's overview shows it (one forwarded request per
     *         owner), with {@code node}; as the store knows it when its owner does not answer
     */
    private JsonObject overview() {
        List<ClusterJobEntry> jobs = cluster.jobs();
        Set<String> owners = new LinkedHashSet<>();
        Map<String, String> ownerUrls = new HashMap<>();
        for (ClusterJobEntry j : jobs) {
            if (j.ownerId() != null) {
                owners.add(j.ownerId());
                ownerUrls.put(j.ownerId(), j.ownerUrl());
            }
        }
        Map<String, JsonObject> byId = new LinkedHashMap<>();
        for (String owner : owners) {
            try {
                ClusterJobs.Answer a = cluster.forward(owner, "GET", "/jobs/overview", null);
                if (a.status() == 200) {
                    for (JsonValue v : parse(a.body()).getJsonArray("jobs")) {
                        JsonObject o = v.asJsonObject();
                        byId.put(owner + "/" + o.getString("jid", ""), o);
                    }
                }
            } catch (IllegalStateException | jakarta.json.JsonException | ClassCastException e) {
                LOG.info("Member {} did not list its jobs: {}", ownerUrls.get(owner), e.getMessage());
            }
        }
        long now = clock.getAsLong();
        JsonArrayBuilder out = Json.createArrayBuilder();
        for (ClusterJobEntry j : jobs) {
            JsonObject run = byId.get(j.ownerId() + "/" + j.id());
            JsonObjectBuilder b;
            if (run != null) {
                b = Json.createObjectBuilder(run);
                if (j.ended() && !terminal(run.getString("state", ""))) {
                    b.add("state", j.status()); // the store ended it; the owner's run is on its way down
                }
            } else {
                b = Json.createObjectBuilder().add("jid", j.id()).add("name", j.name()).add("state", j.status())
                        .add("start-time", j.submitTime()).add("end-time", -1).add("duration", Math.max(0, now - j.submitTime()));
            }
            out.add(b.add(NODE_FIELD, j.ownerUrl()));
        }
        return Json.createObjectBuilder().add("jobs", out).build();
    }

    private static boolean terminal(String state) {
        return Set.of("FINISHED", "FAILED", "CANCELED").contains(state);
    }

    /** @return {@code GET /jobs/:id} of a job no member can answer for: what the job store knows */
    private JsonObject storeDetails(ClusterJobEntry j) {
        long now = clock.getAsLong();
        return Json.createObjectBuilder().add("jid", j.id()).add("name", j.name()).add("state", j.status())
                .add("start-time", j.submitTime()).add("end-time", -1).add("duration", Math.max(0, now - j.submitTime()))
                .add("now", now).add("restarts", 0).add("failure-cause", j.message().isEmpty() ? JsonValue.NULL : Json.createValue(j.message()))
                .add("vertices", Json.createArrayBuilder()).add("plugin-versions", Json.createArrayBuilder())
                .add("upgrades", Json.createArrayBuilder()).add(NODE_FIELD, j.ownerUrl()).build();
    }

    private static ClusterJobs.Answer withNode(ClusterJobs.Answer a, ClusterJobEntry job) {
        try {
            JsonObject o = parse(a.body());
            JsonObjectBuilder b = Json.createObjectBuilder(o).add(NODE_FIELD, job.ownerUrl());
            if (job.ended() && !terminal(o.getString("state", ""))) {
                b.add("state", job.status());
            }
            return new ClusterJobs.Answer(a.status(), "application/json", b.build().toString());
        } catch (jakarta.json.JsonException | ClassCastException e) {
            return a;
        }
    }

    private static JsonObject parse(String body) {
        try (jakarta.json.JsonReader r = Json.createReader(new StringReader(body))) {
            return r.readObject();
        }
    }

    private static ClusterJobs.Answer json(int status, JsonObject body) {
        return new ClusterJobs.Answer(status, "application/json", body.toString());
    }

    /** @return {@code {"errors":[message]}} with {@code status} */
    static ClusterJobs.Answer error(int status, String message) {
        return json(status, Json.createObjectBuilder().add("errors", Json.createArrayBuilder().add(message)).build());
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
