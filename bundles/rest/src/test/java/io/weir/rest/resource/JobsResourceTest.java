package io.weir.rest.resource;

import io.weir.core.checkpoint.CheckpointFailureReason;
import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.rest.node.JobConflictException;
import io.weir.rest.node.JobNotFoundException;
import io.weir.rest.node.JobSubmissionException;
import io.weir.rest.node.NodeJobs;
import io.weir.rest.node.PluginWait;
import io.weir.rest.node.TestEngine;
import io.weir.rest.node.TestPlugins;
import jakarta.json.JsonObject;
import jakarta.json.spi.JsonProvider;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.core.Response;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The REST contract of {@code /jobs}, in process: each endpoint's status and JSON field names (as
 * JSON-B writes them), and each error's status and {@code {"errors":[...]}} body.
 */
class JobsResourceTest {
    private final TestEngine engine = new TestEngine();
    private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);
    private final NodeJobs jobs = new NodeJobs(engine, TestPlugins.registry(), JsonProvider.provider(), PluginWait.NONE, clock::get);
    private final JobsResource resource = new JobsResource(jobs, clock::get, Path.of("/data"),
            new io.weir.rest.node.JobOperations(jobs, Path.of("/data/savepoints")));

    private String submit(String name) {
        Response r = resource.submit(TestPlugins.job(name, 2), null, null);
        return ((Views.Submitted) r.getEntity()).jobid();
    }

    /** The response {@link ApiExceptionMapper} makes of what {@code call} throws. */
    private static Response errorOf(Runnable call) {
        Throwable t = catchThrowable(call::run);
        assertThat(t).as("the call must fail").isNotNull();
        return new ApiExceptionMapper().toResponse((Exception) t);
    }

    private static JsonObject body(Response r) {
        return JsonContract.json(r.getEntity());
    }

    @Test
    void postJobsAnswers202WithTheJobIdAndLocation() {
        Response r = resource.submit(TestPlugins.job("a", 2), "/jobs-dir", List.of("execution.checkpointing.interval=5s"));

        assertThat(r.getStatus()).isEqualTo(202);
        JsonObject json = body(r);
        assertThat(json.getString("jobid")).matches("[0-9a-f]{32}");
        assertThat(json.getString("name")).isEqualTo("a");
        assertThat(r.getLocation().toString()).isEqualTo("/jobs/" + json.getString("jobid"));
    }

    @Test
    void getJobsListsIdAndStatusAsFlinkDoes() {
        String id = submit("a");

        JsonObject json = JsonContract.json(resource.list());

        assertThat(json.getJsonArray("jobs")).hasSize(1);
        JsonObject job = json.getJsonArray("jobs").getJsonObject(0);
        assertThat(job.getString("id")).isEqualTo(id);
        assertThat(job.getString("status")).isEqualTo("RUNNING");
    }

    @Test
    void getJobDetailsHasFlinkFieldNamesAndTheVerticesParallelism() {
        String id = submit("a");
        clock.addAndGet(2500);

        JsonObject json = JsonContract.json(resource.job(id));

        assertThat(json.getString("jid")).isEqualTo(id);
        assertThat(json.getString("name")).isEqualTo("a");
        assertThat(json.getString("state")).isEqualTo("RUNNING");
        assertThat(json.getJsonNumber("start-time").longValue()).isEqualTo(1_700_000_000_000L);
        assertThat(json.getJsonNumber("end-time").longValue()).isEqualTo(-1);
        assertThat(json.getJsonNumber("duration").longValue()).isEqualTo(2500);
        assertThat(json.getJsonArray("vertices")).hasSize(2);
        JsonObject src = json.getJsonArray("vertices").getJsonObject(0);
        assertThat(src.getString("id")).isEqualTo("src");
        assertThat(src.getString("type")).isEqualTo("numbers");
        assertThat(src.getInt("parallelism")).isEqualTo(2);
        assertThat(src.getJsonArray("inputs")).isEmpty();
        assertThat(json.getJsonArray("vertices").getJsonObject(1).getJsonArray("inputs").getString(0)).isEqualTo("src");
    }

    @Test
    void getJobDetailsGivesEachVertexTheRecordsItWroteAsFlinksWriteRecords() {
        String id = submit("a");
        engine.jobs.get("a").recordsWritten = Map.of("src", 12_345L);

        JsonObject json = JsonContract.json(resource.job(id));

        JsonObject src = json.getJsonArray("vertices").getJsonObject(0);
        assertThat(src.getJsonObject("metrics").getJsonNumber("write-records").longValue()).isEqualTo(12_345L);
        JsonObject sink = json.getJsonArray("vertices").getJsonObject(1);
        assertThat(sink.getString("id")).isEqualTo("sink");
        assertThat(sink.getJsonObject("metrics").getJsonNumber("write-records").longValue()).isZero();
    }

    @Test
    void aJobCanBeAddressedByItsUniqueName() {
        String id = submit("by-name");

        assertThat(resource.job("by-name").jid()).isEqualTo(id);
    }

    @Test
    void aRestoreFromTheJobsInitialSavepointOrFromOneItTookIsReportedAsASavepoint() {
        String id = jobs.submit(TestPlugins.job("b", 1), Path.of("/tmp"), Map.of("execution.savepoint.path", "/data/savepoints/sp-1")).id();
        io.weir.core.engine.JobListener listener = engine.jobs.get("b").listener;

        listener.onRestore("b", 5, "/data/savepoints/sp-1/");
        assertThat(JsonContract.json(resource.checkpoints(id)).getJsonObject("latest").getJsonObject("restored")
                .getBoolean("is_savepoint")).as("the initial savepoint").isTrue();

        listener.onCompleted(new CompletedCheckpointStats(9, 1_700_000_000_500L, 40, 1100, 0, false, Map.of(), true,
                "/data/savepoints/sp-9"));
        listener.onRestore("b", 9, "/data/savepoints/sp-9");
        assertThat(JsonContract.json(resource.checkpoints(id)).getJsonObject("latest").getJsonObject("restored")
                .getBoolean("is_savepoint")).as("a savepoint the job took").isTrue();

        listener.onRestore("b", 10, "/cp/b/chk-10");
        assertThat(JsonContract.json(resource.checkpoints(id)).getJsonObject("latest").getJsonObject("restored")
                .getBoolean("is_savepoint")).isFalse();
    }

    @Test
    void checkpointsHaveCountsLatestAndHistoryWithFlinksFieldNames() {
        String id = submit("a");
        Map<TaskId, SubtaskCheckpointMetrics> subtasks = Map.of(
                new TaskId("src", 0, 0), new SubtaskCheckpointMetrics(1_700_000_000_900L, 3, 0, 1, 4, 100, 0, 0, false),
                new TaskId("sink", 0, 0), new SubtaskCheckpointMetrics(1_700_000_000_950L, 7, 12, 2, 30, 900, 64, 2048, true));
        engine.jobs.get("a").listener.onCompleted(new CompletedCheckpointStats(1, 1_700_000_000_500L, 90, 1000, 64, false, subtasks));
        engine.jobs.get("a").listener.onCompleted(new CompletedCheckpointStats(2, 1_700_000_001_500L, 40, 1100, 0, false, subtasks));
        engine.jobs.get("a").listener.onFailed(3, CheckpointFailureReason.values()[0], new RuntimeException("disk full"));
        engine.jobs.get("a").listener.onRestore("a", 2, "/cp/a/chk-2");

        JsonObject json = JsonContract.json(resource.checkpoints(id));

        JsonObject counts = json.getJsonObject("counts");
        assertThat(counts.getInt("completed")).isEqualTo(2);
        assertThat(counts.getInt("failed")).isEqualTo(1);
        assertThat(counts.getInt("total")).isEqualTo(3);
        assertThat(counts.getInt("restored")).isEqualTo(1);
        assertThat(counts.getInt("in_progress")).isZero();
        JsonObject latest = json.getJsonObject("latest").getJsonObject("completed");
        assertThat(latest.getInt("id")).isEqualTo(2);
        assertThat(latest.getString("status")).isEqualTo("COMPLETED");
        assertThat(latest.getJsonNumber("end_to_end_duration").longValue()).isEqualTo(40);
        assertThat(latest.getJsonNumber("checkpointed_size").longValue()).isEqualTo(1100);
        assertThat(latest.getJsonNumber("trigger_timestamp").longValue()).isEqualTo(1_700_000_001_500L);
        assertThat(latest.getJsonNumber("latest_ack_timestamp").longValue()).isEqualTo(1_700_000_000_950L);
        assertThat(latest.getInt("num_subtasks")).isEqualTo(2);
        assertThat(json.getJsonObject("latest").getJsonObject("failed").getString("failure_message")).contains("disk full");
        assertThat(json.getJsonObject("latest").getJsonObject("restored").getString("external_path")).isEqualTo("/cp/a/chk-2");
        assertThat(json.getJsonObject("latest").getJsonObject("restored").getBoolean("is_savepoint")).isFalse();
        assertThat(json.getJsonArray("history")).as("the failed checkpoint 3 is in the history too").hasSize(3);
        assertThat(json.getJsonArray("history").getJsonObject(0).getString("status")).isEqualTo("FAILED");
        JsonObject first = json.getJsonArray("history").getJsonObject(2);
        assertThat(first.getInt("id")).isEqualTo(1);
        assertThat(first.getJsonNumber("persisted_data").longValue()).isEqualTo(64);
        assertThat(first.getJsonNumber("processed_data").longValue()).isEqualTo(2048);
        assertThat(first.getJsonNumber("start_delay").longValue()).as("max over subtasks").isEqualTo(7);
        assertThat(first.getJsonNumber("alignment_duration").longValue()).isEqualTo(12);
        assertThat(first.getJsonNumber("sync_duration").longValue()).isEqualTo(2);
        assertThat(first.getJsonNumber("async_duration").longValue()).isEqualTo(30);
        assertThat(first.getBoolean("unaligned")).isTrue();
    }

    @Test
    void checkpointsOfAJobWithoutAnyLeaveLatestEmpty() {
        String id = submit("a");

        JsonObject json = JsonContract.json(resource.checkpoints(id));

        assertThat(json.getJsonObject("counts").getInt("total")).isZero();
        assertThat(json.getJsonObject("latest")).doesNotContainKey("completed");
        assertThat(json.getJsonArray("history")).isEmpty();
    }

    @Test
    void overviewListsEveryJobWithItsLatestCheckpoint() {
        submit("a");
        submit("b");
        engine.finish("b");

        JsonObject json = JsonContract.json(resource.overview());

        assertThat(json.getJsonArray("jobs")).hasSize(2);
        assertThat(json.getJsonArray("jobs").getValuesAs(JsonObject.class))
                .extracting(j -> j.getString("name") + ":" + j.getString("state"))
                .containsExactlyInAnyOrder("a:RUNNING", "b:FINISHED");
    }

    @Test
    void cancelAnswers202AndCancelsTheJob() {
        String id = submit("a");

        Response r = resource.cancel(id, "cancel");

        assertThat(r.getStatus()).isEqualTo(202);
        assertThat(engine.jobs.get("a").cancelled()).isTrue();
        assertThat(resource.job(id).state()).isEqualTo("CANCELED");
    }

    @Test
    void aBadSpecIs400WithTheParsersFieldPath() {
        Response r = errorOf(() -> resource.submit(TestPlugins.job("a", 0), null, null));

        assertThat(r.getStatus()).isEqualTo(400);
        assertThat(body(r).getJsonArray("errors").getString(0)).contains("operators[0].parallelism");
    }

    @Test
    void malformedJsonIs400() {
        Response r = errorOf(() -> resource.submit("{\"name\": ", null, null));

        assertThat(r.getStatus()).isEqualTo(400);
        assertThat(body(r).getJsonArray("errors")).hasSize(1);
    }

    @Test
    void aRelativeBaseDirIs400() {
        Response r = errorOf(() -> resource.submit(TestPlugins.job("a", 1), "relative/dir", null));

        assertThat(r.getStatus()).isEqualTo(400);
        assertThat(body(r).getJsonArray("errors").getString(0)).contains("base-dir").contains("absolute");
    }

    @Test
    void aSetWithoutEqualsIs400() {
        Response r = errorOf(() -> resource.submit(TestPlugins.job("a", 1), null, List.of("novalue")));

        assertThat(r.getStatus()).isEqualTo(400);
        assertThat(body(r).getJsonArray("errors").getString(0)).contains("'novalue'").contains("key=value");
    }

    @Test
    void aRunningNameIs409() {
        submit("a");

        Response r = errorOf(() -> resource.submit(TestPlugins.job("a", 1), null, null));

        assertThat(r.getStatus()).isEqualTo(409);
        assertThat(body(r).getJsonArray("errors").getString(0)).contains("already RUNNING");
    }

    @Test
    void unknownJobIs404OnEveryJobPath() {
        assertThat(errorOf(() -> resource.job("nope")).getStatus()).isEqualTo(404);
        assertThat(errorOf(() -> resource.checkpoints("nope")).getStatus()).isEqualTo(404);
        Response r = errorOf(() -> resource.cancel("nope", "cancel"));
        assertThat(r.getStatus()).isEqualTo(404);
        assertThat(body(r).getJsonArray("errors").getString(0)).contains("'nope'");
    }

    @Test
    void cancelWithAnotherModeIs400() {
        String id = submit("a");

        Response r = errorOf(() -> resource.cancel(id, "stop"));

        assertThat(r.getStatus()).isEqualTo(400);
        assertThat(body(r).getJsonArray("errors").getString(0)).contains("mode must be 'cancel'").contains("'stop'");
        assertThat(engine.jobs.get("a").cancelled()).isFalse();
    }

    @Test
    void cancellingAnEndedJobIs409() {
        String id = submit("a");
        engine.finish("a");

        Response r = errorOf(() -> resource.cancel(id, "cancel"));

        assertThat(r.getStatus()).isEqualTo(409);
        assertThat(body(r).getJsonArray("errors").getString(0)).contains("FINISHED");
    }

    @Test
    void exceptionsMapToTheirStatuses() {
        assertThat(ApiErrors.toResponse(new JobSubmissionException("x", null)).getStatus()).isEqualTo(400);
        assertThat(ApiErrors.toResponse(new JobNotFoundException("x")).getStatus()).isEqualTo(404);
        assertThat(ApiErrors.toResponse(new JobConflictException("x")).getStatus()).isEqualTo(409);
        Response unknownPath = ApiErrors.toResponse(new NotFoundException());
        assertThat(unknownPath.getStatus()).isEqualTo(404);
        assertThat(body(unknownPath).getJsonArray("errors").getString(0)).contains("docs/rest-api.md");
        Response bug = ApiErrors.toResponse(new IllegalStateException("bug"));
        assertThat(bug.getStatus()).isEqualTo(500);
        assertThat(body(bug).getJsonArray("errors").getString(0)).contains("bug");
    }

    @Test
    void overridesParseKeyEqualsValueKeepingEqualsInTheValue() {
        assertThat(JobsResource.overrides(List.of("a=1", "b=x=y", "c="))).containsExactly(
                Map.entry("a", "1"), Map.entry("b", "x=y"), Map.entry("c", ""));
        assertThatThrownBy(() -> JobsResource.overrides(List.of("=1"))).isInstanceOf(ApiErrors.BadRequestException.class);
    }
}
