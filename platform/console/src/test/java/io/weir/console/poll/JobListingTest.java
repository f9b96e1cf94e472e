package io.weir.console.poll;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonReader;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The Jobs table's merge of the nodes' {@code GET /jobs/overview}, on answers recorded from a three-member cluster
 * ({@code bin/weir node --cluster 127.0.0.1:15801,127.0.0.1:15802,127.0.0.1:15803}, REST ports 18401-18403) running
 * {@code gen-a} (on member 18401) and {@code gen-b} (on 18402), asked at members 18401 and 18402, and from a standalone
 * node (port 18404) running {@code gen-solo}.
 */
class JobListingTest {
    @Test
    void eachClusterJobOnceThroughTheFirstMemberAndEveryStandaloneJob() throws IOException {
        List<JobListing.Listed> rows = JobListing.merge(List.of(
                new JobListing.Answer("n1", read("cluster-3-members-at-18401-jobs-overview.json")),
                new JobListing.Answer("n2", read("cluster-3-members-at-18402-jobs-overview.json")),
                new JobListing.Answer("solo", read("standalone-jobs-overview.json"))));

        assertThat(rows).extracting(r -> r.node(), r -> r.job().getString("name"), r -> r.job().getString("node", null))
                .containsExactlyInAnyOrder(
                        tuple("n1", "gen-a", "http://127.0.0.1:18401"),
                        tuple("n1", "gen-b", "http://127.0.0.1:18402"),
                        tuple("solo", "gen-solo", null));
    }

    @Test
    void aMemberThatIsDownDoesNotHideTheClustersJobs() throws IOException {
        List<JobListing.Listed> rows = JobListing.merge(List.of(
                new JobListing.Answer("n1", null),
                new JobListing.Answer("n2", read("cluster-3-members-at-18402-jobs-overview.json")),
                new JobListing.Answer("solo", read("standalone-jobs-overview.json"))));

        assertThat(rows).extracting(r -> r.node(), r -> r.job().getString("name"))
                .containsExactlyInAnyOrder(tuple("n2", "gen-a"), tuple("n2", "gen-b"), tuple("solo", "gen-solo"));
    }

    @Test
    void everyMemberDownShowsOnlyTheStandalonesJobs() throws IOException {
        List<JobListing.Listed> rows = JobListing.merge(List.of(
                new JobListing.Answer("n1", null),
                new JobListing.Answer("n2", null),
                new JobListing.Answer("solo", read("standalone-jobs-overview.json"))));

        assertThat(rows).extracting(r -> r.node(), r -> r.job().getString("name")).containsExactly(tuple("solo", "gen-solo"));
    }

    @Test
    void twoStandaloneNodesKeepJobsWithTheSameIdApart() throws IOException {
        JsonArray solo = read("standalone-jobs-overview.json");

        List<JobListing.Listed> rows = JobListing.merge(List.of(new JobListing.Answer("a", solo), new JobListing.Answer("b", solo)));

        assertThat(rows).extracting(r -> r.node(), r -> r.job().getString("name"))
                .containsExactly(tuple("a", "gen-solo"), tuple("b", "gen-solo"));
    }

    private static JsonArray read(String name) throws IOException {
        try (InputStream in = JobListingTest.class.getResourceAsStream("/recorded/" + name)) {
            assertThat(in).as(name).isNotNull();
            try (JsonReader reader = Json.createReader(in)) {
                return reader.readObject().getJsonArray("jobs");
            }
        }
    }
}
