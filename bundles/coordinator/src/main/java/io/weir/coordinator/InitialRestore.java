package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.config.CheckpointingOptions;
import io.weir.core.config.Configuration;
import io.weir.core.coordination.OperatorInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Where a job's first start restores from when the user names a savepoint or retained checkpoint
 * ({@code execution.savepoint.path}, {@code weir run --from-savepoint}), and whether state of operators the
 * job lacks may be dropped ({@code execution.savepoint.ignore-unclaimed-state}). Immutable.
 *
 * @param pointer the savepoint's (or checkpoint's) directory or {@code _metadata} file
 * @param allowNonRestoredState whether state of operators the job lacks is dropped (WARN) rather than refused
 * @param operatorIds every operator of the job
 * @param resumeOwnCheckpoints whether a checkpoint of the job's own wins over the savepoint
 *        ({@code execution.savepoint.resume-own-checkpoints}) instead of the run being refused as ambiguous
 */
record InitialRestore(String pointer, boolean allowNonRestoredState, Set<String> operatorIds, boolean resumeOwnCheckpoints) {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCoordinator.class);

    InitialRestore {
        Objects.requireNonNull(pointer, "pointer");
        operatorIds = Set.copyOf(operatorIds);
    }

    /** @return the initial restore the job's configuration asks for, or null if it names no savepoint path */
    static InitialRestore from(Configuration config, List<OperatorInfo> operators) {
        String path = config.get(CheckpointingOptions.SAVEPOINT_PATH);
        if (path == null || path.isBlank()) {
            return null;
        }
        return new InitialRestore(path, config.get(CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE),
                operators.stream().map(OperatorInfo::operatorId).collect(Collectors.toSet()),
                config.get(CheckpointingOptions.SAVEPOINT_RESUME_OWN_CHECKPOINTS));
    }

    /**
     * Checks that every operator holding state in {@code metadata} is one of the job's.
     *
     * @param jobName the job, for messages
     * @throws IllegalStateException naming the operators and what to do, if some are missing and
     *         {@link #allowNonRestoredState()} is false (with it, a WARN names the state that is dropped)
     */
    void checkOperators(String jobName, CheckpointMetadata metadata) {
        Set<String> unclaimed = metadata.operatorsWithStateOutside(operatorIds);
        if (unclaimed.isEmpty()) {
            return;
        }
        if (!allowNonRestoredState) {
            throw new IllegalStateException("savepoint " + pointer + " holds state of operator(s) " + unclaimed
                    + " that job " + jobName + " does not have (its operators: " + new TreeSet<>(operatorIds) + "); give those"
                    + " operators the same ids, or drop their state with --allow-non-restored-state ("
                    + CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE.key() + "=true)");
        }
        LOG.warn("Job {} restores from {} without the state of operator(s) {}, which the job does not have ({}): that state is"
                + " dropped", jobName, pointer, unclaimed, CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE.key());
    }
}
