package io.weir.console.diagnosis;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToLongFunction;

/**
 * Says in one or two sentences why a job's checkpoints are slow or failing, from the figures the node reports: the
 * causes of PROTOCOL.md §9 (backpressure, alignment, big state, slow storage, checkpoints back to back) and failed or
 * expired checkpoints. Looks at the subtask that acknowledged last, as docs/checkpoint-stats.md advises.
 *
 * <p>Rules, in order: the newest checkpoint failed → {@link Cause#FAILED}; no completed checkpoint →
 * {@link Cause#NO_DATA}; an unaligned checkpoint whose in-flight bytes are at least {@value #IN_FLIGHT_SHARE_PERCENT} % of
 * its size → {@link Cause#BACKPRESSURE_IN_FLIGHT}; otherwise the part (start delay of a non-source subtask, alignment,
 * async, sync) that is at least {@value #SIGNIFICANT_MS} ms and at least {@value #DOMINANT_PERCENT} % of the checkpoint's
 * duration names the cause; else {@link Cause#HEALTHY}. When the median duration of the recent checkpoints reaches
 * {@value #BACK_TO_BACK_PERCENT} % of the interval, a sentence about back-to-back checkpoints is added (or is the cause,
 * when nothing else is). Stateless and thread-safe.
 */
public final class Diagnoser {
    /** A part of a checkpoint shorter than this (ms) is never reported as its cause. */
    public static final long SIGNIFICANT_MS = 100;
    /** A part must take at least this share (%) of the checkpoint's duration to be its cause. */
    public static final int DOMINANT_PERCENT = 50;
    /** An unaligned checkpoint whose in-flight bytes reach this share (%) of its size is blamed on backpressure. */
    public static final int IN_FLIGHT_SHARE_PERCENT = 10;
    /** Median duration at or above this share (%) of the interval: back-to-back checkpoints. */
    public static final int BACK_TO_BACK_PERCENT = 80;
    /** Writing slower than this (bytes/s) is slow storage rather than big state. */
    public static final long SLOW_STORAGE_BYTES_PER_S = 10L * 1024 * 1024;

    /**
     * @param history the job's recent finished checkpoints, newest first, completed and failed (subtasks may be empty)
     * @param chosen the completed checkpoint to explain, with its subtasks; empty when the job has none
     * @param config the job's checkpointing options
     * @param inputs the job's graph: vertex id → the ids of the vertices feeding it (from {@code GET /jobs/:id})
     * @return the diagnosis, never null
     */
    public Diagnosis diagnose(List<CheckpointStats> history, Optional<CheckpointStats> chosen, CheckpointingConfig config,
                              Map<String, List<String>> inputs) {
        if (!history.isEmpty() && !history.get(0).completed()) {
            return failed(history.get(0), chosen, config, inputs);
        }
        if (chosen.isEmpty() || chosen.get().subtasks().isEmpty()) {
            return new Diagnosis(Cause.NO_DATA, -1, "No completed checkpoint with per-subtask figures yet; "
                    + (config.intervalMs() > 0 ? "the job checkpoints every " + duration(config.intervalMs()) + "." : "periodic checkpoints are off."));
        }
        Diagnosis main = explain(chosen.get(), config, inputs);
        String backToBack = backToBack(history, config);
        if (backToBack == null) {
            return main;
        }
        if (main.cause() == Cause.HEALTHY) {
            return new Diagnosis(Cause.BACK_TO_BACK, main.checkpointId(), backToBack);
        }
        return new Diagnosis(main.cause(), main.checkpointId(), main.text() + " " + backToBack);
    }

    private Diagnosis failed(CheckpointStats newest, Optional<CheckpointStats> chosen, CheckpointingConfig config,
                             Map<String, List<String>> inputs) {
        String message = newest.failureMessage() == null ? "no reason given" : newest.failureMessage();
        boolean expired = message.toLowerCase(Locale.ROOT).contains("expire");
        StringBuilder text = new StringBuilder("Checkpoint ").append(newest.id())
                .append(expired ? " expired: it took longer than execution.checkpointing.timeout (" : " failed: ")
                .append(message).append(expired ? ")." : ".");
        if (chosen.isPresent() && !chosen.get().subtasks().isEmpty()) {
            Diagnosis before = explain(chosen.get(), config, inputs);
            text.append(" Before it: ").append(before.text());
        }
        return new Diagnosis(Cause.FAILED, newest.id(), text.toString());
    }

    private Diagnosis explain(CheckpointStats c, CheckpointingConfig config, Map<String, List<String>> inputs) {
        long total = c.endToEndMs() > 0 ? c.endToEndMs() : max(c.subtasks(), SubtaskStats::endToEndMs).endToEndMs();
        if (c.persistedBytes() > 0 && c.subtasks().stream().anyMatch(SubtaskStats::unaligned)
                && c.persistedBytes() * 100 >= (long) IN_FLIGHT_SHARE_PERCENT * Math.max(1, c.stateSize())) {
            SubtaskStats s = max(c.subtasks(), SubtaskStats::persistedBytes);
            // a source persists its output buffers: the records wait for the operators it feeds
            String slow = s.source() ? consumers(s.vertex(), inputs) : "`" + s.vertex() + "`";
            return new Diagnosis(Cause.BACKPRESSURE_IN_FLIGHT, c.id(), String.format(Locale.ROOT,
                    "Checkpoint %d took %s, unaligned: %s of it (%d %% of %s) is in-flight records, most on subtask %d of `%s`:"
                            + " backpressure — the barrier overtook buffered records, which are stored and replayed on restore."
                            + " The duration stays short; a faster or more parallel %s would shrink the checkpoints.",
                    c.id(), duration(total), bytes(c.persistedBytes()), percent(c.persistedBytes(), c.stateSize()), bytes(c.stateSize()),
                    s.index(), s.vertex(), slow));
        }
        List<SubtaskStats> downstream = c.subtasks().stream().filter(s -> !s.source()).toList();
        SubtaskStats delayed = downstream.isEmpty() ? null : max(downstream, SubtaskStats::startDelayMs);
        if (delayed != null && dominates(delayed.startDelayMs(), total)) {
            String remedy = config.unalignedEnabled()
                    ? "A shorter execution.checkpointing.aligned-checkpoint-timeout (it switches to unaligned sooner) or a lower buffer-debloat target would cut it."
                    : "Unaligned checkpoints or a lower buffer-debloat target would cut it.";
            return new Diagnosis(Cause.BACKPRESSURE, c.id(), String.format(Locale.ROOT,
                    "Checkpoint %d took %s, %d %% of it start delay on subtask %d of `%s`: backpressure — the barrier waited behind %s"
                            + " of buffered records. %s",
                    c.id(), duration(total), percent(delayed.startDelayMs(), total), delayed.index(), delayed.vertex(),
                    duration(delayed.startDelayMs()), remedy));
        }
        SubtaskStats aligning = max(c.subtasks(), SubtaskStats::alignmentMs);
        if (dominates(aligning.alignmentMs(), total)) {
            return new Diagnosis(Cause.ALIGNMENT, c.id(), String.format(Locale.ROOT,
                    "Checkpoint %d took %s, %d %% of it alignment on subtask %d of `%s`: one of its inputs delivered the barrier %s"
                            + " after the others (an uneven or backpressured upstream subtask). Balance the upstream load, or enable"
                            + " unaligned checkpoints.",
                    c.id(), duration(total), percent(aligning.alignmentMs(), total), aligning.index(), aligning.vertex(),
                    duration(aligning.alignmentMs())));
        }
        SubtaskStats writing = max(c.subtasks(), SubtaskStats::asyncMs);
        if (dominates(writing.asyncMs(), total)) {
            long bytesPerS = writing.stateSize() * 1000 / Math.max(1, writing.asyncMs());
            boolean slowStorage = bytesPerS < SLOW_STORAGE_BYTES_PER_S;
            return new Diagnosis(slowStorage ? Cause.SLOW_STORAGE : Cause.BIG_STATE, c.id(), String.format(Locale.ROOT,
                    "Checkpoint %d took %s, %d %% of it writing %s of state on subtask %d of `%s` (%s/s): %s",
                    c.id(), duration(total), percent(writing.asyncMs(), total), bytes(writing.stateSize()), writing.index(),
                    writing.vertex(), bytes(bytesPerS), slowStorage
                            ? "slow storage — the checkpoint directory writes slowly for this little state; check its disk."
                            : "big state — incremental RocksDB checkpoints or less state per key would cut it."));
        }
        SubtaskStats blocking = max(c.subtasks(), SubtaskStats::syncMs);
        if (dominates(blocking.syncMs(), total)) {
            return new Diagnosis(Cause.SYNC_PHASE, c.id(), String.format(Locale.ROOT,
                    "Checkpoint %d took %s, %d %% of it in the synchronous part on subtask %d of `%s`, which blocks its records:"
                            + " for heap state it should stay at 0–1 ms; look for an operator that snapshots a lot of state synchronously.",
                    c.id(), duration(total), percent(blocking.syncMs(), total), blocking.index(), blocking.vertex()));
        }
        SubtaskStats last = max(c.subtasks(), SubtaskStats::endToEndMs);
        return new Diagnosis(Cause.HEALTHY, c.id(), String.format(Locale.ROOT,
                "Checkpoint %d took %s; healthy: the last subtask to acknowledge (%d of `%s`) spent %s in start delay, %s aligning,"
                        + " %s sync and %s async, none of them a bottleneck.",
                c.id(), duration(total), last.index(), last.vertex(), duration(last.startDelayMs()), duration(last.alignmentMs()),
                duration(last.syncMs()), duration(last.asyncMs())));
    }

    /** @return the vertices fed by {@code vertex}, as "`a`" or "`a` / `b`"; the vertex itself when the graph does not say */
    private static String consumers(String vertex, Map<String, List<String>> inputs) {
        List<String> fed = inputs.entrySet().stream().filter(e -> e.getValue().contains(vertex)).map(e -> "`" + e.getKey() + "`").toList();
        return fed.isEmpty() ? "`" + vertex + "`" : String.join(" / ", fed);
    }

    private static String backToBack(List<CheckpointStats> history, CheckpointingConfig config) {
        if (config.intervalMs() <= 0) {
            return null;
        }
        List<Long> durations = history.stream().filter(CheckpointStats::completed).map(CheckpointStats::endToEndMs).sorted().toList();
        if (durations.isEmpty()) {
            return null;
        }
        long median = durations.get(durations.size() / 2);
        if (median * 100 < (long) BACK_TO_BACK_PERCENT * config.intervalMs() || config.minPauseMs() >= median) {
            return null;
        }
        return String.format(Locale.ROOT, "Checkpoints take %s (median) with an interval of %s: the job lives in back-to-back"
                + " checkpoints; set execution.checkpointing.min-pause (e.g. %s) or a longer interval.",
                duration(median), duration(config.intervalMs()), duration(median));
    }

    private static boolean dominates(long partMs, long totalMs) {
        return partMs >= SIGNIFICANT_MS && partMs * 100 >= (long) DOMINANT_PERCENT * totalMs;
    }

    private static SubtaskStats max(List<SubtaskStats> subtasks, ToLongFunction<SubtaskStats> by) {
        return subtasks.stream().max(Comparator.comparingLong(by).thenComparing(s -> -s.index())).orElseThrow();
    }

    private static long percent(long part, long whole) {
        return whole <= 0 ? 100 : Math.round(part * 100.0 / whole);
    }

    /** @return "212 ms" below a second, else seconds with one decimal: "2.9 s" */
    static String duration(long ms) {
        return ms < 1000 ? ms + " ms" : String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }

    /** @return bytes as "512 B", "6.1 KB", "3.2 MB" or "1.5 GB" (powers of 1024) */
    static String bytes(long b) {
        if (b < 1024) {
            return b + " B";
        }
        String[] units = {"KB", "MB", "GB", "TB"};
        double v = b;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
