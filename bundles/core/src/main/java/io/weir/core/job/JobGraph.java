package io.weir.core.job;

import io.weir.core.config.Configuration;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A validated job: vertices in topological order (sources first), the edges between them and the
 * job configuration. Immutable.
 *
 * @param name the job name
 * @param config the job's configuration ({@code config} object of the job file plus overrides)
 * @param vertices every vertex, each after all its inputs
 * @param edges every edge
 */
public record JobGraph(String name, Configuration config, List<JobVertex> vertices, List<JobEdge> edges) {
    public JobGraph {
        vertices = List.copyOf(vertices);
        edges = List.copyOf(edges);
    }

    /** @return the vertex with this id; IllegalArgumentException if there is none */
    public JobVertex vertex(String id) {
        for (JobVertex v : vertices) {
            if (v.id().equals(id)) {
                return v;
            }
        }
        throw new IllegalArgumentException("no vertex '" + id + "' in job " + name);
    }

    /** @return the edges into {@code id}, in job-file order */
    public List<JobEdge> inputsOf(String id) {
        return edges.stream().filter(e -> e.target().equals(id)).collect(Collectors.toList());
    }

    /** @return the edges out of {@code id}, in job-file order */
    public List<JobEdge> outputsOf(String id) {
        return edges.stream().filter(e -> e.source().equals(id)).collect(Collectors.toList());
    }
}
