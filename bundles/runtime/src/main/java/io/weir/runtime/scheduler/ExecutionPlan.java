package io.weir.runtime.scheduler;

import io.weir.core.config.ExecutionOptions;
import io.weir.core.job.JobEdge;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobVertex;
import io.weir.core.job.Partitioning;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The job's vertices grouped into chains (operator chaining): a vertex joins its input's chain when
 * the edge is forward, parallelism is equal, it has that one input, the input has that one output,
 * and it keeps no keyed state. Immutable.
 *
 * @param job the job
 * @param chains the chains in topological order, each head first
 * @param networkEdges the edges between chains (each from a chain's tail to a chain's head)
 */
public record ExecutionPlan(JobGraph job, List<List<JobVertex>> chains, List<JobEdge> networkEdges) {

    /** @return the plan of {@code job} */
    public static ExecutionPlan of(JobGraph job) {
        boolean chaining = job.config().get(ExecutionOptions.CHAINING);
        Map<String, List<JobVertex>> chainOf = new HashMap<>();
        List<List<JobVertex>> chains = new ArrayList<>();
        List<JobEdge> networkEdges = new ArrayList<>();
        for (JobVertex v : job.vertices()) {
            List<JobEdge> inputs = job.inputsOf(v.id());
            if (chaining && inputs.size() == 1 && canChain(job, inputs.get(0), v)) {
                List<JobVertex> chain = chainOf.get(inputs.get(0).source());
                chain.add(v);
                chainOf.put(v.id(), chain);
            } else {
                List<JobVertex> chain = new ArrayList<>();
                chain.add(v);
                chains.add(chain);
                chainOf.put(v.id(), chain);
                networkEdges.addAll(inputs);
            }
        }
        return new ExecutionPlan(job, chains.stream().map(List::copyOf).toList(), networkEdges);
    }

    private static boolean canChain(JobGraph job, JobEdge edge, JobVertex target) {
        JobVertex source = job.vertex(edge.source());
        // a side output edge is never chained: the chain's operators pass only their main output along
        return edge.output() == null && edge.partitioning() == Partitioning.FORWARD && source.parallelism() == target.parallelism()
                && job.outputsOf(source.id()).size() == 1 && !target.keyed();
    }

    /** @return a description such as {@code flights -> per-origin -> out} per chain */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        for (List<JobVertex> c : chains) {
            if (sb.length() > 0) {
                sb.append(" | ");
            }
            sb.append(String.join(" -> ", c.stream().map(JobVertex::id).toList())).append(" (p=").append(c.get(0).parallelism()).append(')');
        }
        return sb.toString();
    }
}
