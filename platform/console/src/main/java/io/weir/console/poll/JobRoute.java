package io.weir.console.poll;

import java.util.Objects;

/**
 * Which configured node to ask about one job. Normally the node named in the request (the job page's URL, an action);
 * but a cluster job is reachable through every member, so when the named node did not answer the newest poll and the
 * Jobs table now lists the same job (same id) as a cluster job through another configured member, that member is
 * asked instead. Without this, a job page opened through a member that was then killed showed "not reachable" for
 * good, although the job had moved to a survivor and the Jobs table listed it there. Stateless.
 */
public final class JobRoute {
    private JobRoute() {
    }

    /**
     * @param snapshot the newest poll, not null
     * @param node the configured node named in the request, not null
     * @param job the job's id or name as given in the request, not null; only an id is rerouted (a name need not be
     *        unique across the configured nodes and clusters)
     * @return the configured node to ask: {@code node} itself unless the newest poll saw it down and listed cluster job
     *         {@code job} through another configured node, then that node
     */
    public static String nodeFor(Snapshot snapshot, String node, String job) {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(job, "job");
        boolean down = snapshot.nodes().stream().anyMatch(s -> s.name().equals(node) && !s.up());
        if (!down) {
            return node;
        }
        return snapshot.jobs().stream()
                .filter(r -> r.runsOn() != null && r.id().equals(job) && !r.node().equals(node))
                .map(JobRow::node)
                .findFirst()
                .orElse(node);
    }
}
