package io.weir.rest.resource;

import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobListener;
import io.weir.rest.node.JobOperations;
import io.weir.rest.node.NodeJobs;
import io.weir.rest.node.PluginWait;
import io.weir.rest.node.TestEngine;
import io.weir.rest.node.TestPlugins;
import jakarta.json.JsonObject;
import jakarta.json.spi.JsonProvider;
import jakarta.ws.rs.core.Response;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The REST contract of {@code /jobs/:id/checkpoints/config}, {@code /checkpoints/details/:cid},
 * {@code .../subtasks/:vertex}, {@code /exceptions}, and savepoints and failures in {@code /checkpoints}: Flink's
 * field names as JSON-B writes them, values from hand-computed inputs, and the 400/404 bodies.
 */
class CheckpointDetailsResourceTest {
    private static final long T0 = 1_700_000_000_000L;

    private final TestEngine engine = new TestEngine();
    private final AtomicLong clock = new AtomicLong(T0);
    private final NodeJobs jobs = new NodeJobs(engine, TestPlugins.registry(), JsonProvider.provider(), PluginWait.NONE, clock::get);
    private final JobsResource resource = new JobsResource(jobs, clock::get, Path.of("/data"),
            new JobOperations(jobs, Path.of("/data/savepoints")));

    private String submit(String name, List<String> sets) {
        Response r = resource.submit(TestPlugins.job(name, 2), null, sets);
        return ((Views.Submitted) r.getEntity()).jobid();
    }

    private JobListener listener(String name) {
        return engine.jobs.get(name).listener;
    }

    private static Response errorOf(Runnable call) {
        Throwable t = catchThrowable(call::run);
        assertThat(t).as("the call must fail").isNotNull();
        return new ApiExceptionMapper().toResponse((Exception) t);
    }

    private static String error(Response r) {
        return JsonContract.json(r.getEntity()).getJsonArray("errors").getString(0);
    }

    /**
     * Checkpoint 7 triggered at T0+1000: src subtasks 0 and 1, sink subtask 0 and 1. Values chosen so that sums,
     * minima, maxima and averages differ.
     */
    private static CompletedCheckpointStats checkpoint7() {
        long trigger = T0 + 1000;
        return new CompletedCheckpointStats(7, trigger, 120, 1000 + 3000 + 10 + 30, 512, false, Map.of(
                new TaskId("src", 0, 0), new SubtaskCheckpointMetrics(trigger + 20, 1, 0, 2, 5, 10, 0, 0, false),
                new TaskId("src", 1, 0), new SubtaskCheckpointMetrics(trigger + 40, 3, 0, 4, 9, 30, 0, 0, false),
                new TaskId("sink", 0, 0), new SubtaskCheckpointMetrics(trigger + 100, 10, 6, 1, 20, 1000, 0, 4096, false),
                new TaskId("sink", 1, 0), new SubtaskCheckpointMetrics(trigger + 110, 16, 9, 3, 40, 3000, 512, 1024, true)),
                false, "/cp/a/chk-7");
    }

    @Test
    void checkpointConfigReportsTheJobsOptionsWithFlinksNames() {
        String id = submit("a", List.of("execution.checkpointing.interval=5s", "execution.checkpointing.unaligned.enabled=true",
                "execution.checkpointing.aligned-checkpoint-timeout=200ms", "execution.checkpointing.mode=AT_LEAST_ONCE"));

        JsonObject json = JsonContract.json(resource.checkpointConfig(id));

        assertThat(json.getString("mode")).isEqualTo("at_least_once");
        assertThat(json.getJsonNumber("interval").longValue()).isEqualTo(5000);
        assertThat(json.getJsonNumber("timeout").longValue()).as("default 10 min").isEqualTo(600_000);
        assertThat(json.getJsonNumber("min_pause").longValue()).isZero();
        assertThat(json.getInt("max_concurrent")).isEqualTo(1);
        assertThat(json.getBoolean("unaligned_checkpoints")).isTrue();
        assertThat(json.getJsonNumber("aligned_checkpoint_timeout").longValue()).isEqualTo(200);
        assertThat(json.getString("state_backend")).isEqualTo("hashmap");
        assertThat(json.getString("checkpoint_storage")).isEqualTo("filesystem");
        assertThat(json.getJsonObject("externalization").getBoolean("enabled")).isTrue();
        assertThat(json.getJsonObject("externalization").getBoolean("delete_on_cancellation")).isFalse();
        assertThat(json.getInt("tolerable_failed_checkpoints")).isZero();
        assertThat(json.getInt("num_retained")).isEqualTo(1);
        assertThat(json.getString("checkpoint_directory")).as("resolved against the job's base directory").isEqualTo("/data/checkpoints");
    }

    @Test
    void checkpointConfigOfAJobWithoutPeriodicCheckpointsHasIntervalMinusOne() {
        String id = submit("a", null);

        JsonObject json = JsonContract.json(resource.checkpointConfig(id));

        assertThat(json.getJsonNumber("interval").longValue()).isEqualTo(-1);
        assertThat(json.getString("mode")).isEqualTo("exactly_once");
    }

    @Test
    void checkpointDetailsHaveTotalsAndPerVertexTasksInJobOrder() {
        String id = submit("a", null);
        listener("a").onCompleted(checkpoint7());

        JsonObject json = JsonContract.json(resource.checkpointDetails(id, "7"));

        assertThat(json.getInt("id")).isEqualTo(7);
        assertThat(json.getString("status")).isEqualTo("COMPLETED");
        assertThat(json.getBoolean("is_savepoint")).isFalse();
        assertThat(json.getString("checkpoint_type")).isEqualTo("UNALIGNED_CHECKPOINT");
        assertThat(json.getJsonNumber("trigger_timestamp").longValue()).isEqualTo(T0 + 1000);
        assertThat(json.getJsonNumber("latest_ack_timestamp").longValue()).isEqualTo(T0 + 1110);
        assertThat(json.getJsonNumber("end_to_end_duration").longValue()).isEqualTo(120);
        assertThat(json.getJsonNumber("state_size").longValue()).isEqualTo(4040);
        assertThat(json.getJsonNumber("checkpointed_size").longValue()).isEqualTo(4040);
        assertThat(json.getJsonNumber("persisted_data").longValue()).isEqualTo(512);
        assertThat(json.getJsonNumber("processed_data").longValue()).isEqualTo(5120);
        assertThat(json.getInt("num_subtasks")).isEqualTo(4);
        assertThat(json.getInt("num_acknowledged_subtasks")).isEqualTo(4);
        assertThat(json.getString("external_path")).isEqualTo("/cp/a/chk-7");
        assertThat(json.containsKey("failure_message")).isFalse();
        JsonObject tasks = json.getJsonObject("tasks");
        assertThat(tasks.keySet()).containsExactly("src", "sink");
        JsonObject sink = tasks.getJsonObject("sink");
        assertThat(sink.getJsonNumber("state_size").longValue()).isEqualTo(4000);
        assertThat(sink.getJsonNumber("latest_ack_timestamp").longValue()).isEqualTo(T0 + 1110);
        assertThat(sink.getJsonNumber("end_to_end_duration").longValue()).isEqualTo(110);
        assertThat(sink.getJsonNumber("persisted_data").longValue()).isEqualTo(512);
        assertThat(sink.getJsonNumber("processed_data").longValue()).isEqualTo(5120);
        assertThat(sink.getInt("num_subtasks")).isEqualTo(2);
        assertThat(tasks.getJsonObject("src").getJsonNumber("end_to_end_duration").longValue()).isEqualTo(40);
    }

    @Test
    void subtasksOfAVertexHaveFlinksShapeAndASummary() {
        String id = submit("a", null);
        listener("a").onCompleted(checkpoint7());

        JsonObject json = JsonContract.json(resource.checkpointSubtasks("a", "7", "sink"));

        assertThat(json.getInt("id")).isEqualTo(7);
        assertThat(json.getInt("num_subtasks")).isEqualTo(2);
        assertThat(json.getJsonArray("subtasks")).hasSize(2);
        JsonObject s1 = json.getJsonArray("subtasks").getJsonObject(1);
        assertThat(s1.getInt("index")).isEqualTo(1);
        assertThat(s1.getString("status")).isEqualTo("completed");
        assertThat(s1.getJsonNumber("ack_timestamp").longValue()).isEqualTo(T0 + 1110);
        assertThat(s1.getJsonNumber("end_to_end_duration").longValue()).isEqualTo(110);
        assertThat(s1.getJsonNumber("state_size").longValue()).isEqualTo(3000);
        assertThat(s1.getJsonObject("checkpoint").getJsonNumber("sync").longValue()).isEqualTo(3);
        assertThat(s1.getJsonObject("checkpoint").getJsonNumber("async").longValue()).isEqualTo(40);
        assertThat(s1.getJsonObject("alignment").getJsonNumber("processed").longValue()).isEqualTo(1024);
        assertThat(s1.getJsonObject("alignment").getJsonNumber("persisted").longValue()).isEqualTo(512);
        assertThat(s1.getJsonObject("alignment").getJsonNumber("duration").longValue()).isEqualTo(9);
        assertThat(s1.getJsonNumber("start_delay").longValue()).isEqualTo(16);
        assertThat(s1.getBoolean("unaligned_checkpoint")).isTrue();
        JsonObject summary = json.getJsonObject("summary");
        assertThat(summary.getJsonObject("state_size").getJsonNumber("min").longValue()).isEqualTo(1000);
        assertThat(summary.getJsonObject("state_size").getJsonNumber("max").longValue()).isEqualTo(3000);
        assertThat(summary.getJsonObject("state_size").getJsonNumber("avg").longValue()).isEqualTo(2000);
        assertThat(summary.getJsonObject("end_to_end_duration").getJsonNumber("avg").longValue()).isEqualTo(105);
        assertThat(summary.getJsonObject("checkpoint_duration").getJsonObject("async").getJsonNumber("max").longValue()).isEqualTo(40);
        assertThat(summary.getJsonObject("alignment").getJsonObject("duration").getJsonNumber("min").longValue()).isEqualTo(6);
        assertThat(summary.getJsonObject("start_delay").getJsonNumber("avg").longValue()).isEqualTo(13);
        assertThat(id).isNotBlank();
    }

    /**
     * An incremental checkpoint: the keyed subtask wrote 200 bytes and reuses 5000 of earlier checkpoints. Everywhere
     * {@code checkpointed_size} is what was written and {@code state_size} the full state (as in Flink).
     */
    @Test
    void incrementalCheckpointReportsFullStateSizeApartFromCheckpointedSize() {
        String id = submit("a", null);
        long trigger = T0 + 1000;
        listener("a").onCompleted(new CompletedCheckpointStats(9, trigger, 50, 10 + 200, 0, false, Map.of(
                new TaskId("src", 0, 0), new SubtaskCheckpointMetrics(trigger + 20, 1, 0, 2, 5, 10, 0, 0, false),
                new TaskId("sink", 0, 0), new SubtaskCheckpointMetrics(trigger + 30, 1, 0, 2, 5, 200, 0, 0, false, 5200)),
                false, "/cp/a/chk-9"));

        JsonObject completed = JsonContract.json(resource.checkpoints(id)).getJsonObject("latest").getJsonObject("completed");
        assertThat(completed.getJsonNumber("checkpointed_size").longValue()).isEqualTo(210);
        assertThat(completed.getJsonNumber("state_size").longValue()).isEqualTo(5210);
        JsonObject details = JsonContract.json(resource.checkpointDetails(id, "9"));
        assertThat(details.getJsonNumber("checkpointed_size").longValue()).isEqualTo(210);
        assertThat(details.getJsonNumber("state_size").longValue()).isEqualTo(5210);
        JsonObject sink = details.getJsonObject("tasks").getJsonObject("sink");
        assertThat(sink.getJsonNumber("checkpointed_size").longValue()).isEqualTo(200);
        assertThat(sink.getJsonNumber("state_size").longValue()).isEqualTo(5200);
        JsonObject subtasks = JsonContract.json(resource.checkpointSubtasks("a", "9", "sink"));
        assertThat(subtasks.getJsonNumber("state_size").longValue()).isEqualTo(5200);
        JsonObject s0 = subtasks.getJsonArray("subtasks").getJsonObject(0);
        assertThat(s0.getJsonNumber("checkpointed_size").longValue()).isEqualTo(200);
        assertThat(s0.getJsonNumber("state_size").longValue()).isEqualTo(5200);
        assertThat(subtasks.getJsonObject("summary").getJsonObject("state_size").getJsonNumber("max").longValue()).isEqualTo(5200);
        assertThat(subtasks.getJsonObject("summary").getJsonObject("checkpointed_size").getJsonNumber("max").longValue())
                .isEqualTo(200);
    }

    @Test
    void failedCheckpointsAppearInTheHistoryAndDetailsWithTheirFailureMessage() {
        String id = submit("a", null);
        listener("a").onCompleted(checkpoint7());
        clock.set(T0 + 5000);
        listener("a").onFailed(8, CheckpointFailureReason.values()[0], new RuntimeException("disk full"));

        JsonObject checkpoints = JsonContract.json(resource.checkpoints(id));
        assertThat(checkpoints.getJsonArray("history")).hasSize(2);
        JsonObject failed = checkpoints.getJsonArray("history").getJsonObject(0);
        assertThat(failed.getInt("id")).isEqualTo(8);
        assertThat(failed.getString("status")).isEqualTo("FAILED");
        assertThat(failed.getString("failure_message")).endsWith(": disk full");
        assertThat(checkpoints.getJsonArray("history").getJsonObject(1).getString("status")).isEqualTo("COMPLETED");

        JsonObject details = JsonContract.json(resource.checkpointDetails(id, "8"));
        assertThat(details.getString("status")).isEqualTo("FAILED");
        assertThat(details.getJsonNumber("failure_timestamp").longValue()).isEqualTo(T0 + 5000);
        assertThat(details.getString("failure_message")).endsWith(": disk full");
        assertThat(details.getJsonObject("tasks")).isEmpty();

        Response r = errorOf(() -> resource.checkpointSubtasks(id, "8", "sink"));
        assertThat(r.getStatus()).isEqualTo(404);
        assertThat(error(r)).contains("checkpoint 8").contains("failed");
    }

    @Test
    void aSavepointIsLatestSavepointNotLatestCompleted() {
        String id = submit("a", null);
        listener("a").onCompleted(checkpoint7());
        listener("a").onCompleted(new CompletedCheckpointStats(8, T0 + 3000, 50, 10, 0, false,
                Map.of(new TaskId("src", 0, 0), new SubtaskCheckpointMetrics(T0 + 3050, 0, 0, 1, 1, 10, 0, 0, false)),
                true, "/data/savepoints/savepoint-a-0abc12"));

        JsonObject latest = JsonContract.json(resource.checkpoints(id)).getJsonObject("latest");

        assertThat(latest.getJsonObject("completed").getInt("id")).isEqualTo(7);
        assertThat(latest.getJsonObject("savepoint").getInt("id")).isEqualTo(8);
        assertThat(latest.getJsonObject("savepoint").getBoolean("is_savepoint")).isTrue();
        assertThat(latest.getJsonObject("savepoint").getString("external_path")).isEqualTo("/data/savepoints/savepoint-a-0abc12");
        JsonObject details = JsonContract.json(resource.checkpointDetails(id, "8"));
        assertThat(details.getString("checkpoint_type")).isEqualTo("SAVEPOINT");
        assertThat(details.getBoolean("is_savepoint")).isTrue();
    }

    @Test
    void checkpointsOlderThanTheHistoryAre404() {
        String id = submit("a", null);
        for (long cid = 1; cid <= 12; cid++) {
            listener("a").onFailed(cid, CheckpointFailureReason.values()[0], null);
        }

        assertThat(JsonContract.json(resource.checkpointDetails(id, "3")).getInt("id")).isEqualTo(3);
        Response r = errorOf(() -> resource.checkpointDetails(id, "2"));
        assertThat(r.getStatus()).isEqualTo(404);
        assertThat(error(r)).contains("no checkpoint 2").contains("newest 10");
    }

    @Test
    void malformedCheckpointIdsAre400() {
        String id = submit("a", null);

        for (String bad : List.of("x", "-1", "1.5", "99999999999999999999")) {
            Response r = errorOf(() -> resource.checkpointDetails(id, bad));
            assertThat(r.getStatus()).as(bad).isEqualTo(400);
            assertThat(error(r)).contains("'" + bad + "'").contains("non-negative number");
            assertThat(errorOf(() -> resource.checkpointSubtasks(id, bad, "sink")).getStatus()).isEqualTo(400);
        }
    }

    @Test
    void unknownJobCheckpointOrVertexIs404() {
        String id = submit("a", null);
        listener("a").onCompleted(checkpoint7());

        assertThat(errorOf(() -> resource.checkpointConfig("nope")).getStatus()).isEqualTo(404);
        assertThat(errorOf(() -> resource.checkpointDetails("nope", "7")).getStatus()).isEqualTo(404);
        assertThat(errorOf(() -> resource.checkpointSubtasks("nope", "7", "sink")).getStatus()).isEqualTo(404);
        assertThat(errorOf(() -> resource.exceptions("nope")).getStatus()).isEqualTo(404);
        assertThat(error(errorOf(() -> resource.checkpointDetails(id, "6")))).contains("no checkpoint 6");
        Response vertex = errorOf(() -> resource.checkpointSubtasks(id, "7", "map"));
        assertThat(vertex.getStatus()).isEqualTo(404);
        assertThat(error(vertex)).contains("no vertex 'map'").contains("[src, sink]");
    }

    @Test
    void exceptionsListRestartCausesAndTheFinalFailureNewestFirst() {
        String id = submit("a", null);
        JsonObject none = JsonContract.json(resource.exceptions(id));
        assertThat(none.containsKey("root-exception")).isFalse();
        assertThat(none.getJsonObject("exceptionHistory").getJsonArray("entries")).isEmpty();

        clock.set(T0 + 100);
        listener("a").onRestart("a", 1, new IllegalStateException("boom in map"));
        clock.set(T0 + 200);
        engine.fail("a", new java.io.IOException("disk gone"), 1);

        JsonObject json = JsonContract.json(resource.exceptions(id));
        assertThat(json.getString("root-exception")).startsWith("java.io.IOException: disk gone");
        assertThat(json.getJsonNumber("timestamp").longValue()).isEqualTo(T0 + 200);
        assertThat(json.getBoolean("truncated")).isFalse();
        List<JsonObject> entries = json.getJsonObject("exceptionHistory").getJsonArray("entries").getValuesAs(JsonObject.class);
        assertThat(entries).extracting(e -> e.getString("exceptionName"))
                .containsExactly("java.io.IOException", "java.lang.IllegalStateException");
        assertThat(entries.get(1).getString("stacktrace")).contains("boom in map").contains("\tat ");
        assertThat(entries.get(1).getJsonNumber("timestamp").longValue()).isEqualTo(T0 + 100);
        assertThat(entries.get(1).getBoolean("restarted")).isTrue();
        assertThat(entries.get(0).getBoolean("restarted")).isFalse();
    }

    @Test
    void exceptionHistoryKeepsTheNewest16AndSaysItIsTruncated() {
        String id = submit("a", null);
        for (int i = 1; i <= 17; i++) {
            listener("a").onRestart("a", i, new RuntimeException("failure " + i));
        }

        JsonObject json = JsonContract.json(resource.exceptions(id));

        List<JsonObject> entries = json.getJsonObject("exceptionHistory").getJsonArray("entries").getValuesAs(JsonObject.class);
        assertThat(entries).hasSize(16);
        assertThat(entries.get(0).getString("message")).isEqualTo("failure 17");
        assertThat(entries.get(15).getString("message")).isEqualTo("failure 2");
        assertThat(json.getJsonObject("exceptionHistory").getBoolean("truncated")).isTrue();
    }
}
