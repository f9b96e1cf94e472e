package io.weir.coordinator;

import io.weir.core.checkpoint.CheckpointAlignment;
import io.weir.core.checkpoint.CheckpointOptions;
import io.weir.core.config.CheckpointingMode;
import io.weir.core.config.CheckpointingOptions;
import io.weir.core.config.Configuration;
import io.weir.core.coordination.CheckpointTriggerKind;

/**
 * The {@code execution.checkpointing.*} options the coordinator uses (PROTOCOL.md §2), parsed and
 * validated once.
 *
 * @param intervalMs trigger period in ms; 0 means periodic checkpoints are off
 * @param timeoutMs a pending checkpoint older than this (ms) expires, > 0
 * @param maxConcurrent pending checkpoints at once, ≥ 1; exactly 1 for unaligned and aligned-with-timeout
 *        checkpoints (Flink refuses the combination too)
 * @param minPauseMs gap in ms between the last completion and the next trigger, ≥ 0
 * @param tolerableFailed consecutive counted failures tolerated, ≥ 0
 * @param numRetained completed checkpoints kept, ≥ 1
 * @param options the options of a non-final checkpoint's barriers
 * @param finalNotifyDelayMs testing aid ({@code debug.inject-delay.final-checkpoint-notify}): ms between the final
 *        checkpoint's completion and its notification to the tasks, ≥ 0
 */
record CheckpointCoordinatorConfig(long intervalMs, long timeoutMs, int maxConcurrent, long minPauseMs,
        int tolerableFailed, int numRetained, CheckpointOptions options, long finalNotifyDelayMs) {

    /** @throws IllegalArgumentException naming the option whose value is out of range */
    CheckpointCoordinatorConfig {
        require(intervalMs >= 0, CheckpointingOptions.INTERVAL.key(), "must be > 0 ms", intervalMs);
        require(timeoutMs > 0, CheckpointingOptions.TIMEOUT.key(), "must be > 0 ms", timeoutMs);
        require(maxConcurrent >= 1, CheckpointingOptions.MAX_CONCURRENT.key(), "must be >= 1", maxConcurrent);
        require(minPauseMs >= 0, CheckpointingOptions.MIN_PAUSE.key(), "must be >= 0 ms", minPauseMs);
        require(tolerableFailed >= 0, CheckpointingOptions.TOLERABLE_FAILED.key(), "must be >= 0", tolerableFailed);
        require(numRetained >= 1, CheckpointingOptions.NUM_RETAINED.key(), "must be >= 1", numRetained);
        if (options == null || options.isFinal()) {
            throw new IllegalArgumentException("base checkpoint options must be non-final, got " + options);
        }
        if (maxConcurrent > 1 && (options.alignment() == CheckpointAlignment.UNALIGNED
                || options.alignment() == CheckpointAlignment.ALIGNED_WITH_TIMEOUT)) {
            // As in Flink: a task records one checkpoint's in-flight data at a time, and a newer
            // barrier overtaking an older one's recording would subsume it at every task.
            throw new IllegalArgumentException("configuration '" + CheckpointingOptions.MAX_CONCURRENT.key() + "' is "
                    + maxConcurrent + ", but unaligned checkpoints (" + CheckpointingOptions.UNALIGNED.key() + " or "
                    + CheckpointingOptions.ALIGNED_TIMEOUT.key() + ") support one checkpoint at a time: set "
                    + CheckpointingOptions.MAX_CONCURRENT.key() + " to 1 or use aligned checkpoints");
        }
    }

    /**
     * Reads the options. Alignment: AT_LEAST_ONCE mode → {@link CheckpointAlignment#AT_LEAST_ONCE};
     * else an aligned-checkpoint timeout > 0 → {@link CheckpointAlignment#ALIGNED_WITH_TIMEOUT}
     * (aligned first, unaligned after the timeout, also when unaligned is enabled, as in Flink);
     * else unaligned enabled → {@link CheckpointAlignment#UNALIGNED}; else
     * {@link CheckpointAlignment#ALIGNED}.
     *
     * @throws IllegalArgumentException if a value does not parse or is out of range, naming the key
     */
    static CheckpointCoordinatorConfig from(Configuration config) {
        Long interval = config.get(CheckpointingOptions.INTERVAL);
        if (interval != null && interval <= 0) {
            throw new IllegalArgumentException("configuration '" + CheckpointingOptions.INTERVAL.key()
                    + "': must be > 0 ms, got " + interval);
        }
        long alignedTimeout = config.get(CheckpointingOptions.ALIGNED_TIMEOUT);
        require(alignedTimeout >= 0, CheckpointingOptions.ALIGNED_TIMEOUT.key(), "must be >= 0 ms", alignedTimeout);
        CheckpointOptions options;
        if (config.get(CheckpointingOptions.MODE) == CheckpointingMode.AT_LEAST_ONCE) {
            options = new CheckpointOptions(CheckpointAlignment.AT_LEAST_ONCE, 0, false);
        } else if (alignedTimeout > 0) {
            options = new CheckpointOptions(CheckpointAlignment.ALIGNED_WITH_TIMEOUT, alignedTimeout, false);
        } else if (config.get(CheckpointingOptions.UNALIGNED)) {
            options = new CheckpointOptions(CheckpointAlignment.UNALIGNED, 0, false);
        } else {
            options = CheckpointOptions.aligned();
        }
        return new CheckpointCoordinatorConfig(interval == null ? 0 : interval,
                config.get(CheckpointingOptions.TIMEOUT), config.get(CheckpointingOptions.MAX_CONCURRENT),
                config.get(CheckpointingOptions.MIN_PAUSE), config.get(CheckpointingOptions.TOLERABLE_FAILED),
                config.get(CheckpointingOptions.NUM_RETAINED), options,
                config.get(io.weir.core.config.ExecutionOptions.INJECT_DELAY_FINAL_NOTIFY));
    }

    /** @return whether periodic checkpoints are on */
    boolean isPeriodic() {
        return intervalMs > 0;
    }

    /** @return the barrier options of a checkpoint of {@code kind}: {@link #options()}, final for FINAL */
    CheckpointOptions optionsFor(CheckpointTriggerKind kind) {
        return kind == CheckpointTriggerKind.FINAL ? options.asFinal() : options;
    }

    /**
     * @return the barrier options of {@code request}: a savepoint's are always aligned (as in Flink, whatever the
     *         job's checkpoints use) and final if it terminates the job; other kinds as {@link #optionsFor(CheckpointTriggerKind)}
     */
    CheckpointOptions optionsFor(CheckpointRequest request) {
        if (!request.isSavepoint()) {
            return optionsFor(request.kind());
        }
        return request.terminate() ? CheckpointOptions.aligned().asFinal() : CheckpointOptions.aligned();
    }

    private static void require(boolean ok, String key, String rule, Object value) {
        if (!ok) {
            throw new IllegalArgumentException("configuration '" + key + "': " + rule + ", got " + value);
        }
    }
}
