package io.weir.core.coordination;

/**
 * An operator of the job as the coordinator records it in {@code _metadata}.
 *
 * @param operatorId id in the job
 * @param parallelism subtasks
 * @param maxParallelism key groups
 */
public record OperatorInfo(String operatorId, int parallelism, int maxParallelism) {
}
