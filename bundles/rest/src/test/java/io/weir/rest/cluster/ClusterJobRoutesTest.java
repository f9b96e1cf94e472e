package io.weir.rest.cluster;

import io.weir.core.cluster.ClusterJobEntry;
import io.weir.core.cluster.ClusterJobs;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Where a cluster node answers {@code /jobs} requests: the store for lists and cancels, the owner for one job. */
class ClusterJobRoutesTest {
    private static final String A = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    private static final String B = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    private static final String N1 = "http://127.0.0.1:8081";
    private static final String N2 = "http://127.0.0.1:8082";

    /** Two jobs: a on member m1 (this node), b on member m2; records what is forwarded and cancelled. */
    private static final class FakeCluster implements ClusterJobs {
        final List<String> forwarded = new ArrayList<>();
        final List<String> cancelled = new ArrayList<>();
        final Map<String, ClusterJobs.Answer> answers = new java.util.HashMap<>();
        boolean m2Gone;
        List<ClusterJobEntry> jobs = List.of(
                new ClusterJobEntry(A, "a", "RUNNING", "m1", N1, 1, 1_000, "", true),
                new ClusterJobEntry(B, "b", "RUNNING", "m2", N2, 3, 2_000, "", false));

        @Override
        public List<ClusterJobEntry> jobs() {
            return jobs;
        }

        @Override
        public Optional<ClusterJobEntry> find(String idOrName) {
            return jobs.stream().filter(j -> j.id().equals(idOrName) || j.name().equals(idOrName)).findFirst();
        }

        @Override
        public ClusterJobEntry submit(String spec, Path baseDirectory, Map<String, String> overrides) {
            throw new UnsupportedOperationException("POST /jobs is the node's resource's");
        }

        @Override
        public ClusterJobEntry cancel(String idOrName) {
            cancelled.add(idOrName);
            return find(idOrName).orElseThrow();
        }

        @Override
        public String selfUrl() {
            return N1;
        }

        @Override
        public Answer forward(String memberId, String method, String pathAndQuery, String body) {
            forwarded.add(memberId + " " + method + " " + pathAndQuery + (body == null ? "" : " " + body));
            if (m2Gone && memberId.equals("m2")) {
                throw new IllegalStateException("member m2 is not in the cluster");
            }
            return answers.getOrDefault(memberId + " " + pathAndQuery, new Answer(404, "application/json", "{\"errors\":[\"no\"]}"));
        }
    }

    private final FakeCluster cluster = new FakeCluster();
    private final ClusterJobRoutes routes = new ClusterJobRoutes(cluster, () -> 10_000);

    private Optional<ClusterJobs.Answer> route(String method, String query, String... segments) {
        return routes.route(method, List.of(segments), query, () -> "{\"target-directory\":null}");
    }

    private static JsonObject json(ClusterJobs.Answer a) {
        return Json.createReader(new StringReader(a.body())).readObject();
    }

    @Test
    void theJobListHoldsEveryJobOfTheClusterWithItsNode() {
        JsonObject list = json(route("GET", null).orElseThrow());

        assertThat(list.getJsonArray("jobs").getValuesAs(JsonObject.class)).extracting(j -> j.getString("id") + " " + j.getString("name")
                + " " + j.getString("status") + " " + j.getString("node")).containsExactly(A + " a RUNNING " + N1, B + " b RUNNING " + N2);
        assertThat(cluster.forwarded).as("answered from the store").isEmpty();
    }

    @Test
    void aRequestAboutAJobByNameGoesToItsOwnerUnderItsIdAndTheDetailsSayWhichNode() {
        cluster.answers.put("m2 /jobs/" + B, new ClusterJobs.Answer(200, "application/json", "{\"jid\":\"" + B + "\",\"state\":\"RUNNING\"}"));
        cluster.answers.put("m2 /jobs/" + B + "/savepoints", new ClusterJobs.Answer(202, "application/json", "{\"request-id\":\"r1\"}"));

        JsonObject details = json(route("GET", null, "b").orElseThrow());
        ClusterJobs.Answer savepoint = route("POST", null, "b", "savepoints").orElseThrow();

        assertThat(details.getString("node")).isEqualTo(N2);
        assertThat(details.getString("jid")).isEqualTo(B);
        assertThat(savepoint.status()).isEqualTo(202);
        assertThat(savepoint.body()).isEqualTo("{\"request-id\":\"r1\"}");
        assertThat(cluster.forwarded).containsExactly("m2 GET /jobs/" + B, "m2 POST /jobs/" + B + "/savepoints {\"target-directory\":null}");
    }

    @Test
    void aJobRunHereIsAnsweredThroughThisNodesOwnApiToo() {
        cluster.answers.put("m1 /jobs/" + A + "/checkpoints?x=1", new ClusterJobs.Answer(200, "application/json", "{\"counts\":{}}"));

        ClusterJobs.Answer a = route("GET", "x=1", A, "checkpoints").orElseThrow();

        assertThat(a.body()).isEqualTo("{\"counts\":{}}");
        assertThat(cluster.forwarded).containsExactly("m1 GET /jobs/" + A + "/checkpoints?x=1");
    }

    @Test
    void aCancelGoesThroughTheJobStoreNotTheOwner() {
        ClusterJobs.Answer a = route("PATCH", "mode=cancel", "b").orElseThrow();
        ClusterJobs.Answer bad = route("PATCH", "mode=stop", "b").orElseThrow();

        assertThat(a.status()).isEqualTo(202);
        assertThat(cluster.cancelled).containsExactly(B);
        assertThat(bad.status()).isEqualTo(400);
        assertThat(cluster.forwarded).isEmpty();
    }

    @Test
    void theDetailsOfAJobWhoseOwnerIsGoneComeFromTheStoreAndAnActionOnItIsRefusedFor503() {
        cluster.m2Gone = true;

        JsonObject details = json(route("GET", null, B).orElseThrow());
        ClusterJobs.Answer stop = route("POST", null, B, "stop").orElseThrow();

        assertThat(details.getString("state")).isEqualTo("RUNNING");
        assertThat(details.getString("node")).isEqualTo(N2);
        assertThat(details.getJsonNumber("duration").longValue()).isEqualTo(8_000);
        assertThat(stop.status()).isEqualTo(503);
        assertThat(json(stop).getJsonArray("errors").getString(0)).contains("job b (" + B + ") has no running owner right now");
    }

    @Test
    void theOverviewTakesEachJobFromItsOwnersOverviewAndAddsTheNode() {
        cluster.answers.put("m1 /jobs/overview", new ClusterJobs.Answer(200, "application/json", "{\"jobs\":[{\"jid\":\"" + A
                + "\",\"name\":\"a\",\"state\":\"RUNNING\",\"duration\":5},{\"jid\":\"" + B + "\",\"name\":\"b\",\"state\":\"SUSPENDED\"}]}"));
        cluster.m2Gone = true;

        List<JsonObject> jobs = json(route("GET", null, "overview").orElseThrow()).getJsonArray("jobs").getValuesAs(JsonObject.class);

        assertThat(jobs).hasSize(2);
        assertThat(jobs.get(0).getJsonNumber("duration").longValue()).as("a from its owner").isEqualTo(5);
        assertThat(jobs.get(0).getString("node")).isEqualTo(N1);
        assertThat(jobs.get(1).getString("state")).as("b from the store, not from m1's former run of it").isEqualTo("RUNNING");
        assertThat(jobs.get(1).getString("node")).isEqualTo(N2);
    }

    @Test
    void aJobTheClusterDoesNotKnowAndASubmitAreLeftToTheNodesOwnResources() {
        assertThat(route("GET", null, "cccccccccccccccccccccccccccccccc")).isEmpty();
        assertThat(route("POST", null)).isEmpty();
    }
}
