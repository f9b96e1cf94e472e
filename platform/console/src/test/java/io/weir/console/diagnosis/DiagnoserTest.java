package io.weir.console.diagnosis;

import io.weir.console.node.NodeJson;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The diagnosis rules on checkpoint statistics recorded from a node running the benchmark variants
 * ({@code src/test/resources/recorded/}: datagen 2000 rec/s of 1 KB, 16 keys → counter, p=2, checkpoint every 5 s;
 * {@code bp} sleeps 5 ms per record in the counter, {@code bp-unaligned} also enables unaligned checkpoints), and on
 * hand-made figures for the causes those runs do not show.
 */
class DiagnoserTest {
    private final Diagnoser diagnoser = new Diagnoser();

    @Test
    void backpressuredAlignedRunIsBackpressureOnTheCounter() throws IOException {
        Diagnosis d = recorded("bp", 5);

        assertThat(d.cause()).isEqualTo(Cause.BACKPRESSURE);
        // chk 5: e2e 237 ms; counter subtask 0: start_delay 212 ms (212 / 237 = 89 %)
        assertThat(d.text()).isEqualTo("Checkpoint 5 took 237 ms, 89 % of it start delay on subtask 0 of `counter`: backpressure"
                + " — the barrier waited behind 212 ms of buffered records. Unaligned checkpoints or a lower buffer-debloat target would cut it.");
    }

    @Test
    void backpressuredUnalignedRunIsInFlightDataWaitingForTheCounter() throws IOException {
        Diagnosis d = recorded("bp-unaligned", 5);

        assertThat(d.cause()).isEqualTo(Cause.BACKPRESSURE_IN_FLIGHT);
        // chk 5: persisted 45,452 of 47,812 bytes (95 %); most on source subtask 0 (24,792), which feeds the counter
        assertThat(d.text()).isEqualTo("Checkpoint 5 took 188 ms, unaligned: 44.4 KB of it (95 % of 46.7 KB) is in-flight records,"
                + " most on subtask 0 of `source`: backpressure — the barrier overtook buffered records, which are stored and replayed"
                + " on restore. The duration stays short; a faster or more parallel `counter` would shrink the checkpoints.");
    }

    @Test
    void runWithoutBackpressureIsHealthy() throws IOException {
        Diagnosis d = recorded("nobp", 5);

        assertThat(d.cause()).isEqualTo(Cause.HEALTHY);
        // chk 5: 8 ms; counter subtask 0 acknowledged last: start delay 1, alignment 1, sync 4, async 0
        assertThat(d.text()).isEqualTo("Checkpoint 5 took 8 ms; healthy: the last subtask to acknowledge (0 of `counter`) spent"
                + " 1 ms in start delay, 1 ms aligning, 4 ms sync and 0 ms async, none of them a bottleneck.");
    }

    @Test
    void lateBarrierOnOneInputIsAlignment() {
        Diagnosis d = diagnose(List.of(sub("join", 1, false, 5, 1500, 1, 10, 1520, 1000, 0)), 1600, 1000, 0);

        assertThat(d.cause()).isEqualTo(Cause.ALIGNMENT);
        assertThat(d.text()).startsWith("Checkpoint 9 took 1.6 s, 94 % of it alignment on subtask 1 of `join`: one of its inputs"
                + " delivered the barrier 1.5 s after the others");
    }

    @Test
    void slowAsyncWithLittleStateIsSlowStorage() {
        // 1 MiB in 2 s = 512 KB/s, below 10 MB/s
        Diagnosis d = diagnose(List.of(sub("agg", 0, false, 2, 0, 1, 2000, 2010, 1024 * 1024, 0)), 2050, 1024 * 1024, 0);

        assertThat(d.cause()).isEqualTo(Cause.SLOW_STORAGE);
        assertThat(d.text()).contains("98 % of it writing 1.0 MB of state on subtask 0 of `agg` (512.0 KB/s): slow storage");
    }

    @Test
    void slowAsyncWithMuchStateIsBigState() {
        // 2 GiB in 40 s = 51.2 MB/s
        long size = 2L * 1024 * 1024 * 1024;
        Diagnosis d = diagnose(List.of(sub("agg", 0, false, 2, 0, 1, 40_000, 40_010, size, 0)), 40_100, size, 0);

        assertThat(d.cause()).isEqualTo(Cause.BIG_STATE);
        assertThat(d.text()).contains("writing 2.0 GB of state on subtask 0 of `agg` (51.2 MB/s): big state");
    }

    @Test
    void longSyncPartIsTheSyncPhase() {
        Diagnosis d = diagnose(List.of(sub("agg", 0, false, 2, 0, 800, 10, 815, 100, 0)), 820, 100, 0);

        assertThat(d.cause()).isEqualTo(Cause.SYNC_PHASE);
        assertThat(d.text()).contains("98 % of it in the synchronous part on subtask 0 of `agg`");
    }

    @Test
    void sourceStartDelayIsNotBackpressure() {
        // a source's start delay is the trigger's latency; nothing downstream waited
        Diagnosis d = diagnose(List.of(sub("src", 0, true, 300, 0, 0, 1, 302, 10, 0), sub("agg", 0, false, 1, 0, 0, 1, 3, 10, 0)),
                310, 20, 0);

        assertThat(d.cause()).isNotEqualTo(Cause.BACKPRESSURE);
    }

    @Test
    void checkpointsAsLongAsTheIntervalAreBackToBack() {
        CheckpointStats c = new CheckpointStats(3, true, false, 90, 10, 0, null, List.of(sub("agg", 0, false, 1, 0, 0, 2, 80, 10, 0)));
        List<CheckpointStats> history = List.of(c, totals(2, 95), totals(1, 85));

        Diagnosis d = diagnoser.diagnose(history, Optional.of(c), new CheckpointingConfig(100, 0, false), Map.of());

        assertThat(d.cause()).isEqualTo(Cause.BACK_TO_BACK);
        assertThat(d.text()).isEqualTo("Checkpoints take 90 ms (median) with an interval of 100 ms: the job lives in back-to-back"
                + " checkpoints; set execution.checkpointing.min-pause (e.g. 90 ms) or a longer interval.");
    }

    @Test
    void expiredNewestCheckpointIsReportedWithItsReason() {
        CheckpointStats expired = new CheckpointStats(7, false, false, -1, 0, 0, "Checkpoint expired before completing.", List.of());
        CheckpointStats done = new CheckpointStats(6, true, false, 900, 10, 0, null, List.of(sub("agg", 1, false, 800, 0, 0, 1, 890, 10, 0)));

        Diagnosis d = diagnoser.diagnose(List.of(expired, done), Optional.of(done), new CheckpointingConfig(60_000, 0, false), Map.of());

        assertThat(d.cause()).isEqualTo(Cause.FAILED);
        assertThat(d.checkpointId()).isEqualTo(7);
        assertThat(d.text()).startsWith("Checkpoint 7 expired: it took longer than execution.checkpointing.timeout (Checkpoint expired"
                + " before completing.). Before it: Checkpoint 6 took 900 ms, 89 % of it start delay on subtask 1 of `agg`: backpressure");
    }

    @Test
    void noCompletedCheckpointSaysSo() {
        Diagnosis d = diagnoser.diagnose(List.of(), Optional.empty(), new CheckpointingConfig(1000, 0, false), Map.of());

        assertThat(d.cause()).isEqualTo(Cause.NO_DATA);
        assertThat(d.text()).isEqualTo("No completed checkpoint with per-subtask figures yet; the job checkpoints every 1.0 s.");
    }

    private Diagnosis diagnose(List<SubtaskStats> subtasks, long e2e, long size, long persisted) {
        CheckpointStats c = new CheckpointStats(9, true, false, e2e, size, persisted, null, subtasks);
        return diagnoser.diagnose(List.of(c), Optional.of(c), new CheckpointingConfig(60_000, 0, false), Map.of());
    }

    private static CheckpointStats totals(long id, long e2e) {
        return new CheckpointStats(id, true, false, e2e, 10, 0, null, List.of());
    }

    private static SubtaskStats sub(String vertex, int index, boolean source, long startDelay, long alignment, long sync, long async,
                                    long e2e, long size, long persisted) {
        return new SubtaskStats(vertex, index, source, startDelay, alignment, sync, async, e2e, size, persisted, persisted > 0);
    }

    /** Diagnoses checkpoint {@code cid} of the recorded run {@code variant}, as the console reads it from a node. */
    private Diagnosis recorded(String variant, long cid) throws IOException {
        JsonObject job = read(variant + "-job.json");
        JsonObject details = read(variant + "-details-" + cid + ".json");
        Map<String, Boolean> sources = NodeJson.sources(job);
        List<SubtaskStats> subtasks = new ArrayList<>();
        for (String vertex : NodeJson.taskVertices(details)) {
            subtasks.addAll(NodeJson.subtasks(read(variant + "-subtasks-" + cid + "-" + vertex + ".json"), vertex, sources.get(vertex)));
        }
        return diagnoser.diagnose(NodeJson.history(read(variant + "-checkpoints.json")), Optional.of(NodeJson.checkpoint(details, subtasks)),
                NodeJson.config(read(variant + "-config.json")), NodeJson.inputs(job));
    }

    private static JsonObject read(String name) throws IOException {
        try (InputStream in = DiagnoserTest.class.getResourceAsStream("/recorded/" + name)) {
            assertThat(in).as("test resource recorded/%s", name).isNotNull();
            try (JsonReader r = Json.createReader(in)) {
                return r.readObject();
            }
        }
    }
}
