package io.weir.core.config;

import java.util.List;

/**
 * The checkpointing options of PROTOCOL.md §2, with Flink's keys and defaults.
 * Each numeric option declares its lower bound ({@link ConfigOption#min}); the job parser rejects
 * values below it before anything starts.
 */
public final class CheckpointingOptions {
    private CheckpointingOptions() {
    }

    /** Trigger period in ms; unset means checkpointing is off. */
    public static final ConfigOption<Long> INTERVAL = ConfigOption.durationOption(
            "execution.checkpointing.interval", null, "Trigger period; unset disables periodic checkpoints.").greaterThan(0, "ms");
    /** A pending checkpoint older than this (ms) expires. */
    public static final ConfigOption<Long> TIMEOUT = ConfigOption.durationOption(
            "execution.checkpointing.timeout", 600_000L, "A pending checkpoint older than this expires.").greaterThan(0, "ms");
    /** Maximum pending checkpoints at once. */
    public static final ConfigOption<Integer> MAX_CONCURRENT = ConfigOption.intOption(
            "execution.checkpointing.max-concurrent-checkpoints", 1, "Checkpoints pending at once.").atLeast(1, "");
    /** Minimum gap (ms) between the last completion and the next trigger. */
    public static final ConfigOption<Long> MIN_PAUSE = ConfigOption.durationOption(
            "execution.checkpointing.min-pause", 0L, "Gap between the last completion and the next trigger.").atLeast(0, "ms");
    /** Consecutive counted checkpoint failures tolerated before the job fails. */
    public static final ConfigOption<Integer> TOLERABLE_FAILED = ConfigOption.intOption(
            "execution.checkpointing.tolerable-failed-checkpoints", 0,
            "Consecutive counted checkpoint failures before the job fails over.").atLeast(0, "");
    /** Completed checkpoints retained. */
    public static final ConfigOption<Integer> NUM_RETAINED = ConfigOption.intOption(
            "execution.checkpointing.num-retained", 1, "Completed checkpoints kept.").atLeast(1, "");
    /** Unaligned barriers. */
    public static final ConfigOption<Boolean> UNALIGNED = ConfigOption.booleanOption(
            "execution.checkpointing.unaligned.enabled", false, "Unaligned barriers (PROTOCOL.md §6).");
    /** Aligned first, switch to unaligned after this many ms; 0 = never. */
    public static final ConfigOption<Long> ALIGNED_TIMEOUT = ConfigOption.durationOption(
            "execution.checkpointing.aligned-checkpoint-timeout", 0L,
            "Start aligned, switch to unaligned after this; 0 disables.").atLeast(0, "ms");
    /** EXACTLY_ONCE or AT_LEAST_ONCE. */
    public static final ConfigOption<CheckpointingMode> MODE = ConfigOption.enumOption(
            "execution.checkpointing.mode", CheckpointingMode.class, CheckpointingMode.EXACTLY_ONCE,
            "EXACTLY_ONCE (aligned) or AT_LEAST_ONCE (barrier tracking, no blocking).");
    /** Directory under which {@code <job>/chk-<id>/} directories are written. */
    public static final ConfigOption<String> DIRECTORY = ConfigOption.stringOption(
            "execution.checkpointing.dir", "checkpoints", "Checkpoint storage directory.");

    /**
     * Directory under which savepoints are written ({@code savepoint-<job>-<6 hex digits>/}) when a savepoint
     * request names none; relative to the job file's directory. Flink 2's key; unset means every savepoint
     * request must name a directory.
     */
    public static final ConfigOption<String> SAVEPOINT_DIRECTORY = ConfigOption.stringOption(
            "execution.checkpointing.savepoint-dir", null,
            "Default target directory of savepoints; unset means a savepoint request must name one.");
    /**
     * A savepoint or retained checkpoint (its directory or its {@code _metadata}) that the job's first start
     * restores from instead of the job's own checkpoints. Flink's key; {@code weir run --from-savepoint PATH}
     * sets it.
     */
    public static final ConfigOption<String> SAVEPOINT_PATH = ConfigOption.stringOption(
            "execution.savepoint.path", null,
            "Savepoint or retained checkpoint to restore the job's first start from.");
    /**
     * With {@link #SAVEPOINT_PATH}: state of operators the job does not have is dropped (logged at WARN)
     * instead of refusing the restore. Flink's key; {@code weir run --allow-non-restored-state} sets it.
     */
    public static final ConfigOption<Boolean> SAVEPOINT_IGNORE_UNCLAIMED_STATE = ConfigOption.booleanOption(
            "execution.savepoint.ignore-unclaimed-state", false,
            "Restore from a savepoint even if it holds state of operators the job does not have (that state is dropped).");
    /**
     * With {@link #SAVEPOINT_PATH}: if the job already has a checkpoint (or recorded savepoint) of its own, resume
     * from the newest of them instead of refusing the run as ambiguous; the savepoint is used only while the job has
     * none. This is how Flink resumes a job after a JobManager failover (checkpoints in the HA store win over the
     * job's initial savepoint); the node sets it when it resumes a job after a restart.
     */
    public static final ConfigOption<Boolean> SAVEPOINT_RESUME_OWN_CHECKPOINTS = ConfigOption.booleanOption(
            "execution.savepoint.resume-own-checkpoints", false,
            "With execution.savepoint.path: resume from the job's own newest checkpoint if it has one, else from the savepoint.");

    /** @return every option of this class, for docs and validation */
    public static List<ConfigOption<?>> all() {
        return List.of(INTERVAL, TIMEOUT, MAX_CONCURRENT, MIN_PAUSE, TOLERABLE_FAILED, NUM_RETAINED,
                UNALIGNED, ALIGNED_TIMEOUT, MODE, DIRECTORY, SAVEPOINT_DIRECTORY, SAVEPOINT_PATH,
                SAVEPOINT_IGNORE_UNCLAIMED_STATE, SAVEPOINT_RESUME_OWN_CHECKPOINTS);
    }
}
