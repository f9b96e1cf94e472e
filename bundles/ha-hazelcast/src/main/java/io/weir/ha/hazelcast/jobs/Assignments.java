package io.weir.ha.hazelcast.jobs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The leader's plan: which RUNNING jobs have no live owner (never assigned, or their owner left the cluster) and
 * which member gets each. Each goes to the member with the fewest RUNNING jobs, ties to the youngest member: the
 * oldest is the leader and Hazelcast's master, and a job there would fail over together with the mastership (a claim
 * and a partition-table repair on top of the job's own move; docs/ha.md "A paused member").
 * A pure function: no cluster access.
 */
final class Assignments {
    private Assignments() {
    }

    /**
     * One assignment.
     *
     * @param job the job as the leader saw it (its epoch is the compare-and-set's expected epoch)
     * @param to the new owner
     */
    record Assignment(ClusterJob job, MemberRef to) {
    }

    /**
     * @param jobs every job of the store
     * @param members the live members, oldest first, at least one
     * @return the assignments, by job name
     */
    static List<Assignment> plan(List<ClusterJob> jobs, List<MemberRef> members) {
        Map<String, Integer> load = new HashMap<>();
        members.forEach(m -> load.put(m.id(), 0));
        List<ClusterJob> orphans = new ArrayList<>();
        for (ClusterJob job : jobs) {
            if (job.status() != ClusterJobStatus.RUNNING) {
                continue;
            }
            if (job.owner() != null && load.containsKey(job.owner())) {
                load.merge(job.owner(), 1, Integer::sum);
            } else {
                orphans.add(job);
            }
        }
        orphans.sort(java.util.Comparator.comparing(ClusterJob::name));
        List<Assignment> plan = new ArrayList<>();
        for (ClusterJob job : orphans) {
            MemberRef target = members.get(0);
            for (MemberRef m : members) {
                if (load.get(m.id()) <= load.get(target.id())) {
                    target = m;
                }
            }
            load.merge(target.id(), 1, Integer::sum);
            plan.add(new Assignment(job, target));
        }
        return plan;
    }
}
