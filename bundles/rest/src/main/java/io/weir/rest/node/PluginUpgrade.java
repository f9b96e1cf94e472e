package io.weir.rest.node;

import java.util.List;
import java.util.Objects;

/**
 * One move of a running job between plugin versions, as the node reports it ({@code GET /jobs/:id},
 * {@code upgrades}; {@code weir info}).
 *
 * <pre>
 * IN_PROGRESS ──→ UPGRADED        the new version restored and passed its probation
 *      │     └──→ ROLLED_BACK     the new version failed its probation; the job runs the old one again
 *      └────────→ FAILED          it failed and the old version was gone (or failed too); restart from savepoint
 * </pre>
 *
 * @param time when the move started (the registry change it reacts to was quiet), ms since the epoch
 * @param from the operators' plugins before, as {@code operator: type bundle version}
 * @param to the operators' plugins after, same form (for ROLLED_BACK: the version tried)
 * @param savepoint the savepoint the job was stopped with and restored from (absolute), or null if the
 *        stop-with-savepoint failed and the job restored its latest checkpoint
 * @param downtimeMs from the end of the stop-with-savepoint to the first row the new version sent, ms;
 *        -1 until measured (or when the job has no network output to measure it by)
 * @param outcome where the move is
 * @param message what happened, one line (the failure for ROLLED_BACK and FAILED); null while in progress
 */
public record PluginUpgrade(long time, List<String> from, List<String> to, String savepoint, long downtimeMs,
        Outcome outcome, String message) {
    /** Where a move is; {@link #IN_PROGRESS} leads to exactly one of the others. */
    public enum Outcome {
        /** Stopped, restoring on the new version, or in its probation. */
        IN_PROGRESS,
        /** Runs on the new version. */
        UPGRADED,
        /** The new version failed; runs on the old one, pinned to it until a newer version appears. */
        ROLLED_BACK,
        /** Neither version runs the job; the message names the savepoint to restart from. */
        FAILED
    }

    /** @throws NullPointerException if a list or the outcome is null */
    public PluginUpgrade {
        from = List.copyOf(from);
        to = List.copyOf(to);
        Objects.requireNonNull(outcome, "outcome");
    }

    /**
     * @return this move with another outcome and message
     * @throws IllegalStateException if this one has already ended (naming both outcomes)
     */
    PluginUpgrade ended(Outcome newOutcome, String newMessage) {
        if (outcome != Outcome.IN_PROGRESS || newOutcome == Outcome.IN_PROGRESS) {
            throw new IllegalStateException("a plugin upgrade cannot go from " + outcome + " to " + newOutcome);
        }
        return new PluginUpgrade(time, from, to, savepoint, downtimeMs, newOutcome, newMessage);
    }

    /** @return this move with its downtime measured */
    PluginUpgrade withDowntime(long ms) {
        return new PluginUpgrade(time, from, to, savepoint, ms, outcome, message);
    }
}
