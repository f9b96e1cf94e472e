package io.weir.core.job;

import java.util.List;

/**
 * A connection from one vertex's output to another vertex's input.
 *
 * @param source producing vertex id
 * @param target consuming vertex id
 * @param partitioning how records are distributed
 * @param keyFields for {@link Partitioning#HASH}: the key fields of the source's schema; else empty
 */
public record JobEdge(String source, String target, Partitioning partitioning, List<String> keyFields) {
    public JobEdge {
        keyFields = List.copyOf(keyFields);
    }
}
