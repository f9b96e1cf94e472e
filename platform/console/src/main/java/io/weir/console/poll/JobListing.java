package io.weir.console.poll;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Chooses which entries of the configured nodes' {@code GET /jobs/overview} answers the Jobs table shows: every job of
 * a standalone node, and each cluster job once. A cluster member lists every job of its cluster, each with a
 * {@code node} field (the REST URL of the member running it, docs/rest-api.md "Cluster"); such a job is shown through
 * the first configured node, in configuration order, that listed it. A node that did not answer lists nothing, so the
 * cluster's jobs come from the next member that answered. Stateless.
 */
final class JobListing {
    private JobListing() {
    }

    /**
     * One configured node's answer.
     *
     * @param node the node's name in the configuration, not null
     * @param jobs the {@code jobs} array of its {@code GET /jobs/overview}; null when the node did not answer
     */
    record Answer(String node, JsonArray jobs) {
        Answer {
            Objects.requireNonNull(node, "node");
        }
    }

    /**
     * One row to show.
     *
     * @param node the configured node the row is read through
     * @param job its entry of that node's {@code GET /jobs/overview} (has {@code jid})
     */
    record Listed(String node, JsonObject job) {
    }

    /**
     * @param answers every configured node's answer, in configuration order
     * @return the rows, in the order of the answers and of each answer's jobs; a cluster job (an entry with {@code node})
     *         once, through the first answer that lists it
     * @throws ClassCastException when an entry of {@code jobs} is not an object
     */
    static List<Listed> merge(List<Answer> answers) {
        List<Listed> rows = new ArrayList<>();
        Set<String> clusterJobs = new HashSet<>();
        for (Answer answer : answers) {
            if (answer.jobs() == null) {
                continue;
            }
            for (JsonValue v : answer.jobs()) {
                JsonObject job = v.asJsonObject();
                if (!job.containsKey("node") || clusterJobs.add(job.getString("jid"))) {
                    rows.add(new Listed(answer.node(), job));
                }
            }
        }
        return rows;
    }
}
