package io.weir.core.job;

import java.util.List;

/**
 * A connection from one vertex's output to another vertex's input.
 *
 * @param source producing vertex id
 * @param target consuming vertex id
 * @param partitioning how records are distributed
 * @param keyFields for {@link Partitioning#HASH}: the key fields of the source's schema; else empty
 * @param output the source's side output this edge carries ({@code {"from": id, "output": name}}), or null for
 *        its main output
 */
public record JobEdge(String source, String target, Partitioning partitioning, List<String> keyFields, String output) {
    public JobEdge {
        keyFields = List.copyOf(keyFields);
    }

    /** An edge from the source's main output. */
    public JobEdge(String source, String target, Partitioning partitioning, List<String> keyFields) {
        this(source, target, partitioning, keyFields, null);
    }

    /**
     * @param producer the vertex named by {@link #source()}
     * @return the schema of the rows on this edge: the producer's output schema, or for a side output its input
     *         schema (a side output carries input rows, e.g. late rows of a window)
     */
    public io.weir.api.Schema schemaFrom(JobVertex producer) {
        return output == null ? producer.outputSchema() : producer.inputSchema();
    }
}
