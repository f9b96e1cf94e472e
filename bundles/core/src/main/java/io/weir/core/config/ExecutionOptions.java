package io.weir.core.config;

import java.util.List;

/**
 * Job options of the task runtime, restarts and the state backend: each job's own (its channels,
 * buffers, restarts and state are its own). Options of the engine itself are in {@link EngineOptions}.
 * Each numeric option declares its lower bound ({@link ConfigOption#min}); the job parser rejects
 * values below it before anything starts.
 */
public final class ExecutionOptions {
    private ExecutionOptions() {
    }

    /** Number of key groups; the upper bound of a keyed operator's parallelism (PROTOCOL.md §7). */
    public static final ConfigOption<Integer> MAX_PARALLELISM = ConfigOption.intOption(
            "pipeline.max-parallelism", 128, "Key groups per keyed operator.");
    /**
     * Flink's {@code pipeline.jobvertex-parallelism-overrides}: operator id to parallelism, as
     * {@code id:parallelism} pairs separated by commas ({@code per-origin:4,out:4}), replacing the job file's
     * {@code parallelism} of those operators. Meant for {@code --set}, to restore a job from a savepoint with
     * another parallelism without editing its file. Unset: the job file's parallelism.
     */
    public static final ConfigOption<String> PARALLELISM_OVERRIDES = ConfigOption.stringOption(
            "pipeline.jobvertex-parallelism-overrides", null,
            "Operator id to parallelism (per-origin:4,out:4), replacing the job file's parallelism of those operators.");
    /** Restarts allowed before the job fails for good. */
    public static final ConfigOption<Integer> RESTART_ATTEMPTS = ConfigOption.intOption(
            "restart-strategy.fixed-delay.attempts", 3, "Restarts from the latest checkpoint before the job fails.").atLeast(0, "");
    /** Wait before a restart, ms. */
    public static final ConfigOption<Long> RESTART_DELAY = ConfigOption.durationOption(
            "restart-strategy.fixed-delay.delay", 1000L, "Delay before a restart.").atLeast(0, "ms");
    /** Bytes per network buffer. */
    public static final ConfigOption<Integer> BUFFER_SIZE = ConfigOption.intOption(
            "taskmanager.memory.segment-size", 32 * 1024, "Bytes per network buffer.").atLeast(64, "bytes");
    /** Exclusive credits (buffers) per input channel. */
    public static final ConfigOption<Integer> BUFFERS_PER_CHANNEL = ConfigOption.intOption(
            "taskmanager.network.memory.buffers-per-channel", 2, "Exclusive buffers per input channel.").atLeast(1, "");
    /** Floating credits shared by the channels of one input gate. */
    public static final ConfigOption<Integer> FLOATING_BUFFERS_PER_GATE = ConfigOption.intOption(
            "taskmanager.network.memory.floating-buffers-per-gate", 8, "Floating buffers per input gate.").atLeast(0, "");
    /** Longest time a partly filled buffer waits before it is sent, ms. */
    public static final ConfigOption<Long> BUFFER_TIMEOUT = ConfigOption.durationOption(
            "execution.buffer-timeout", 100L, "Flush partly filled buffers after this.").atLeast(0, "ms");
    /**
     * Buffer debloating: consumers size the producers' buffers so that in-flight data on their
     * channels holds about {@link #BUFFER_DEBLOAT_TARGET} of their measured throughput.
     */
    public static final ConfigOption<Boolean> BUFFER_DEBLOAT_ENABLED = ConfigOption.booleanOption(
            "taskmanager.network.memory.buffer-debloat.enabled", true, "Adapt buffer sizes to consumer throughput.");
    /**
     * In-flight data per consumer, in ms of its throughput. Default 200 ms, not Flink's 1 s: an
     * aligned checkpoint's start delay under backpressure is about this long and an unaligned one
     * persists about this much data, and local channels have no network round trip to hide.
     */
    public static final ConfigOption<Long> BUFFER_DEBLOAT_TARGET = ConfigOption.durationOption(
            "taskmanager.network.memory.buffer-debloat.target", 200L, "In-flight data per consumer, as time of its throughput.").atLeast(1, "ms");

    /** Chain forward edges of equal parallelism into one task. */
    public static final ConfigOption<Boolean> CHAINING = ConfigOption.booleanOption(
            "pipeline.operator-chaining", true, "Chain forward edges of equal parallelism.");
    /** Name of the state backend service. */
    public static final ConfigOption<String> STATE_BACKEND = ConfigOption.stringOption(
            "state.backend.type", "hashmap", "State backend (hashmap).");

    /**
     * Testing aid: the operator whose subtask 0 throws once, in the job's first execution attempt, on
     * the first record that finds both {@link #INJECT_FAILURE_AFTER_RECORDS} records processed and
     * {@link #INJECT_FAILURE_AFTER_CHECKPOINTS} completed checkpoints notified. Unset: no failure is injected.
     */
    public static final ConfigOption<String> INJECT_FAILURE_OPERATOR = ConfigOption.stringOption(
            "debug.inject-failure.operator", null, "Operator id whose subtask 0 fails once (testing failover).");
    /** Testing aid: records the operator processes before the injected failure. */
    public static final ConfigOption<Long> INJECT_FAILURE_AFTER_RECORDS = ConfigOption.longOption(
            "debug.inject-failure.after-records", 1000L, "Records before the injected failure.").atLeast(1L, "");
    /**
     * Testing aid: completed checkpoints the failing subtask must have been notified of before the
     * injected failure (0: do not wait), so that a test can be sure the failure restores from a
     * checkpoint instead of restarting from scratch.
     */
    public static final ConfigOption<Integer> INJECT_FAILURE_AFTER_CHECKPOINTS = ConfigOption.intOption(
            "debug.inject-failure.after-checkpoints", 0, "Completed checkpoints before the injected failure.").atLeast(0, "");

    /** @return every option of this class */
    /**
     * Testing aid: how long the coordinator waits, after the final checkpoint's {@code _metadata} is
     * durable, before it notifies the tasks (whose sinks then commit). Opens a window of known length
     * in which a test can kill the process between the final checkpoint and its commits.
     */
    public static final ConfigOption<Long> INJECT_DELAY_FINAL_NOTIFY = ConfigOption.durationOption(
            "debug.inject-delay.final-checkpoint-notify", 0L,
            "Delay before the final checkpoint's completion is sent to the tasks (testing kills in that window).");

    /**
     * How often a source with a {@code timestamp-field} emits a watermark (Flink's option of the same name), ms.
     * Shorter: windows fire closer to the data; longer: fewer watermark events (each flushes the output buffers).
     */
    public static final ConfigOption<Long> AUTO_WATERMARK_INTERVAL = ConfigOption.durationOption(
            "pipeline.auto-watermark-interval", 200L, "Watermark emission interval of sources with a timestamp-field.").atLeast(1, "ms");

    /** @return every job option of the runtime */
    public static List<ConfigOption<?>> all() {
        return List.of(MAX_PARALLELISM, PARALLELISM_OVERRIDES, RESTART_ATTEMPTS, RESTART_DELAY, BUFFER_SIZE, BUFFERS_PER_CHANNEL,
                FLOATING_BUFFERS_PER_GATE, BUFFER_TIMEOUT, BUFFER_DEBLOAT_ENABLED, BUFFER_DEBLOAT_TARGET, CHAINING, STATE_BACKEND,
                INJECT_FAILURE_OPERATOR, INJECT_FAILURE_AFTER_RECORDS, INJECT_FAILURE_AFTER_CHECKPOINTS,
                INJECT_DELAY_FINAL_NOTIFY, AUTO_WATERMARK_INTERVAL);
    }
}
