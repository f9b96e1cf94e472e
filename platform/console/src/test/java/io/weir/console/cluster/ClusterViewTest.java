package io.weir.console.cluster;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The cluster section's view model, from {@code GET /cluster} and {@code GET /cluster/jobs} recorded on a one-member
 * cluster node ({@code bin/weir node --cluster 127.0.0.1:15791 --cluster-port 15791}) running job {@code gen-ha} and
 * with {@code gen-cancelled} cancelled through {@code DELETE /cluster/jobs/gen-cancelled}; and on hand-made answers of
 * a three-member cluster.
 */
class ClusterViewTest {

    @Test
    void recordedOneMemberClusterShowsItsLeaderAndTheJobItRuns() throws IOException {
        ClusterView view = ClusterView.from(read("cluster-1-member.json").asJsonObject(), read("cluster-1-member-jobs.json").asJsonArray());

        assertThat(view.name()).isEqualTo("weir");
        assertThat(view.leader()).isEqualTo("http://127.0.0.1:18391");
        assertThat(view.members()).containsExactly(
                new ClusterView.Member("127.0.0.1:15791", "http://127.0.0.1:18391", true, true, List.of("gen-ha")));
        assertThat(view.hasQuorum()).isTrue();
        assertThat(view.jobs()).containsExactly(
                new ClusterView.Job("gen-cancelled", "CANCELED", "http://127.0.0.1:18391", "cancelled by a user"),
                new ClusterView.Job("gen-ha", "RUNNING", "http://127.0.0.1:18391", ""));

        JsonObject json = view.toJson();
        assertThat(json.getString("summary")).isEqualTo("cluster 'weir': 1 of 1 members, quorum 1, leader http://127.0.0.1:18391");
        assertThat(json.getJsonArray("members").getJsonObject(0).getJsonArray("jobs").getString(0)).isEqualTo("gen-ha");
        assertThat(json.getJsonArray("members").getJsonObject(0).getBoolean("leader")).isTrue();
        assertThat(json.getJsonArray("jobs").getJsonObject(0).getString("message")).isEqualTo("cancelled by a user");
    }

    @Test
    void clusterBelowQuorumSaysJobsStop() {
        JsonObject cluster = parse("""
                {"name": "prod", "leader": "http://h2:8082", "quorum": 2, "configured": 3,
                 "members": [{"id": "b", "address": "h2:5702", "url": "http://h2:8082", "leader": true, "self": true, "jobs": []}]}
                """).asJsonObject();

        ClusterView view = ClusterView.from(cluster, JsonValue.EMPTY_JSON_ARRAY);

        assertThat(view.hasQuorum()).isFalse();
        assertThat(view.toJson().getString("summary")).isEqualTo(
                "cluster 'prod': 1 of 3 members, quorum 2, leader http://h2:8082 — below quorum: jobs stop until members return");
        assertThat(view.toJson().getBoolean("hasQuorum")).isFalse();
    }

    @Test
    void threeMembersKeepTheirOrderAndJobsPerMember() {
        JsonObject cluster = parse("""
                {"name": "weir", "leader": "http://h1:8081", "quorum": 2, "configured": 3, "members": [
                  {"id": "a", "address": "h1:5701", "url": "http://h1:8081", "leader": true, "self": false, "jobs": ["x"]},
                  {"id": "b", "address": "h2:5702", "url": "http://h2:8082", "leader": false, "self": true, "jobs": []},
                  {"id": "c", "address": "h3:5703", "url": "http://h3:8083", "leader": false, "self": false, "jobs": ["y", "z"]}]}
                """).asJsonObject();
        JsonArray jobs = parse("""
                [{"name": "q", "status": "RUNNING", "owner": "", "ownerId": null, "epoch": 0, "submitTime": 1, "message": ""}]
                """).asJsonArray();

        ClusterView view = ClusterView.from(cluster, jobs);

        assertThat(view.members()).extracting(ClusterView.Member::address).containsExactly("h1:5701", "h2:5702", "h3:5703");
        assertThat(view.members()).extracting(ClusterView.Member::jobs).containsExactly(List.of("x"), List.of(), List.of("y", "z"));
        assertThat(view.jobs()).containsExactly(new ClusterView.Job("q", "RUNNING", "", ""));
        assertThat(view.toJson().getString("summary")).isEqualTo("cluster 'weir': 3 of 3 members, quorum 2, leader http://h1:8081");
    }

    @Test
    void answerWithoutMembersIsRefusedNamingTheAnswer() {
        JsonObject cluster = parse("{\"name\": \"weir\", \"leader\": \"\", \"quorum\": 1, \"configured\": 1}").asJsonObject();

        assertThatThrownBy(() -> ClusterView.from(cluster, JsonValue.EMPTY_JSON_ARRAY))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("the node's GET /cluster or /cluster/jobs answer is not as docs/rest-api.md describes");
    }

    private static JsonValue read(String name) throws IOException {
        try (InputStream in = ClusterViewTest.class.getResourceAsStream("/recorded/" + name); JsonReader r = Json.createReader(in)) {
            return r.readValue();
        }
    }

    private static JsonValue parse(String text) {
        try (JsonReader r = Json.createReader(new StringReader(text))) {
            return r.readValue();
        }
    }
}
