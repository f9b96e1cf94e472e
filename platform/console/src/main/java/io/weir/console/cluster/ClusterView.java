package io.weir.console.cluster;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;

import java.util.List;
import java.util.Objects;

/**
 * What the console shows of a Hazelcast cluster of Weir nodes (docs/ha.md): its members with the leader and the jobs
 * each owns, whether it has a quorum, and every cluster job with its state and owner. Built from a node's
 * {@code GET /cluster} and {@code GET /cluster/jobs} answers (docs/rest-api.md, "Cluster"); immutable.
 *
 * @param name the cluster's name ({@code weir.cluster.name})
 * @param leader the leader's REST URL, {@code ""} when the answering node sees none
 * @param quorum members needed to run and move jobs, &gt;= 1
 * @param configured members configured with {@code --cluster}, &gt;= 1
 * @param members the members the answering node sees, oldest (the leader) first
 * @param jobs every job of the cluster, as the node lists them
 */
public record ClusterView(String name, String leader, int quorum, int configured, List<Member> members, List<Job> jobs) {

    /**
     * @throws NullPointerException if a string or list is null
     * @throws IllegalArgumentException if quorum or configured is below 1
     */
    public ClusterView {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(leader, "leader");
        if (quorum < 1 || configured < 1) {
            throw new IllegalArgumentException("cluster '" + name + "': quorum and configured members must be >= 1, got " + quorum
                    + " and " + configured);
        }
        members = List.copyOf(members);
        jobs = List.copyOf(jobs);
    }

    /**
     * One member.
     *
     * @param address its Hazelcast {@code host:port}
     * @param url its REST URL
     * @param leader whether it is the leader
     * @param self whether it is the node the console asked
     * @param jobs names of the RUNNING jobs it owns
     */
    public record Member(String address, String url, boolean leader, boolean self, List<String> jobs) {
        /** @throws NullPointerException if a field is null */
        public Member {
            Objects.requireNonNull(address, "address");
            Objects.requireNonNull(url, "url");
            jobs = List.copyOf(jobs);
        }
    }

    /**
     * One cluster job.
     *
     * @param name its name, unique among RUNNING jobs of the cluster
     * @param status RUNNING, FINISHED, FAILED or CANCELED
     * @param owner the owning member's REST URL, {@code ""} while unassigned
     * @param message why it ended, {@code ""} if it has not or the node gives no reason
     */
    public record Job(String name, String status, String owner, String message) {
        /** @throws NullPointerException if a field is null */
        public Job {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(status, "status");
            Objects.requireNonNull(owner, "owner");
            Objects.requireNonNull(message, "message");
        }
    }

    /**
     * Reads a node's answers.
     *
     * @param cluster the node's {@code GET /cluster} object
     * @param jobs the node's {@code GET /cluster/jobs} array
     * @return the view
     * @throws IllegalArgumentException naming the field when an answer lacks one or has the wrong type
     */
    public static ClusterView from(JsonObject cluster, JsonArray jobs) {
        try {
            List<Member> members = cluster.getJsonArray("members").getValuesAs(JsonObject.class).stream()
                    .map(m -> new Member(m.getString("address"), m.getString("url"), m.getBoolean("leader"), m.getBoolean("self"),
                            m.getJsonArray("jobs").getValuesAs(JsonString.class).stream().map(JsonString::getString).toList()))
                    .toList();
            List<Job> js = jobs.getValuesAs(JsonObject.class).stream()
                    .map(j -> new Job(j.getString("name"), j.getString("status"), j.getString("owner", ""), j.getString("message", "")))
                    .toList();
            return new ClusterView(cluster.getString("name"), cluster.getString("leader", ""), cluster.getInt("quorum"),
                    cluster.getInt("configured"), members, js);
        } catch (NullPointerException | ClassCastException e) {
            throw new IllegalArgumentException("the node's GET /cluster or /cluster/jobs answer is not as docs/rest-api.md describes ("
                    + e.getMessage() + "): " + cluster, e);
        }
    }

    /** @return whether the members this node sees reach the quorum: without it, jobs stop until members return */
    public boolean hasQuorum() {
        return members.size() >= quorum;
    }

    /**
     * @return {@code {name, leader, quorum, configured, hasQuorum, summary, members: [{address, url, leader, self, jobs}],
     *         jobs: [{name, status, owner, message}]}}; {@code summary} is one line such as
     *         "cluster 'weir': 3 of 3 members, quorum 2, leader http://127.0.0.1:8081"
     */
    public JsonObject toJson() {
        JsonArrayBuilder ms = Json.createArrayBuilder();
        for (Member m : members) {
            ms.add(Json.createObjectBuilder().add("address", m.address()).add("url", m.url()).add("leader", m.leader()).add("self", m.self())
                    .add("jobs", Json.createArrayBuilder(m.jobs())));
        }
        JsonArrayBuilder js = Json.createArrayBuilder();
        for (Job j : jobs) {
            js.add(Json.createObjectBuilder().add("name", j.name()).add("status", j.status()).add("owner", j.owner()).add("message", j.message()));
        }
        return Json.createObjectBuilder().add("name", name).add("leader", leader).add("quorum", quorum).add("configured", configured)
                .add("hasQuorum", hasQuorum()).add("summary", summary()).add("members", ms).add("jobs", js).build();
    }

    /** One line for the section's heading. */
    private String summary() {
        String s = "cluster '" + name + "': " + members.size() + " of " + configured + " members, quorum " + quorum
                + (leader.isEmpty() ? ", no leader" : ", leader " + leader);
        return hasQuorum() ? s : s + " — below quorum: jobs stop until members return";
    }

}
