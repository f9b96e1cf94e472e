package io.weir.rest.resource;

import io.weir.core.checkpoint.CheckpointException;
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
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The REST contract of {@code POST /jobs/:id/checkpoints}, {@code /savepoints}, {@code /stop} and their status
 * paths, in process: statuses, Flink's field names, and the 400/403/404/409 errors.
 */
class JobOperationsResourceTest {
    private static final Path SAVEPOINTS = Path.of("/data/savepoints");

    private final TestEngine engine = new TestEngine();
    private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);
    private final NodeJobs jobs = new NodeJobs(engine, TestPlugins.registry(), JsonProvider.provider(), PluginWait.NONE, clock::get);
    private final JobsResource resource = new JobsResource(jobs, clock::get, Path.of("/data"), new JobOperations(jobs, SAVEPOINTS));

    private String submit(String name) {
        return ((Views.Submitted) resource.submit(TestPlugins.job(name, 2), null, null).getEntity()).jobid();
    }

    private static Response errorOf(Runnable call) {
        Throwable t = catchThrowable(call::run);
        assertThat(t).as("the call must fail").isNotNull();
        return new ApiExceptionMapper().toResponse((Exception) t);
    }

    private static String error(Response r) {
        return JsonContract.json(r.getEntity()).getJsonArray("errors").getString(0);
    }

    private static String requestId(Response r) {
        assertThat(r.getStatus()).isEqualTo(202);
        String id = JsonContract.json(r.getEntity()).getString("request-id");
        assertThat(id).matches("[0-9a-f]{32}");
        return id;
    }

    @Test
    void savepointIsInProgressThenCompletedWithItsLocation() {
        String job = submit("a");

        String rid = requestId(resource.triggerSavepoint(job, "{\"target-directory\": \"/data/savepoints/a\", \"cancel-job\": false}"));

        assertThat(engine.jobs.get("a").savepointDirectory).isEqualTo(Path.of("/data/savepoints/a"));
        JsonObject pending = JsonContract.json(resource.savepointStatus(job, rid));
        assertThat(pending.getJsonObject("status").getString("id")).isEqualTo("IN_PROGRESS");
        assertThat(pending.containsKey("operation")).isFalse();

        engine.jobs.get("a").savepoint.complete(Path.of("/data/savepoints/a/savepoint-a-0abc12"));

        JsonObject done = JsonContract.json(resource.savepointStatus(job, rid));
        assertThat(done.getJsonObject("status").getString("id")).isEqualTo("COMPLETED");
        assertThat(done.getJsonObject("operation").getString("location")).isEqualTo("/data/savepoints/a/savepoint-a-0abc12");
    }

    @Test
    void savepointWithoutBodyGoesToTheNodesSavepointDirectory() {
        String job = submit("a");

        requestId(resource.triggerSavepoint("a", ""));

        assertThat(engine.jobs.get("a").savepointDirectory).isEqualTo(SAVEPOINTS);
        assertThat(job).isNotBlank();
    }

    @Test
    void relativeTargetResolvesInsideTheSavepointDirectory() {
        submit("a");

        requestId(resource.triggerSavepoint("a", "{\"target-directory\": \"nightly\"}"));

        assertThat(engine.jobs.get("a").savepointDirectory).isEqualTo(Path.of("/data/savepoints/nightly"));
    }

    @Test
    void failedSavepointReportsItsFailureCause() {
        String job = submit("a");
        String rid = requestId(resource.triggerSavepoint(job, null));

        engine.jobs.get("a").savepoint.completeExceptionally(new IllegalStateException("declined by task map#1"));

        JsonObject done = JsonContract.json(resource.savepointStatus(job, rid));
        assertThat(done.getJsonObject("status").getString("id")).isEqualTo("COMPLETED");
        JsonObject cause = done.getJsonObject("operation").getJsonObject("failure-cause");
        assertThat(cause.getString("class")).isEqualTo("java.lang.IllegalStateException");
        assertThat(cause.getString("message")).isEqualTo("declined by task map#1");
        assertThat(cause.getString("stack-trace")).contains("declined by task map#1");
        assertThat(done.getJsonObject("operation").containsKey("location")).isFalse();
    }

    @Test
    void stopUsesFlinksFieldNamesAndReportsThroughTheSavepointStatus() {
        String job = submit("a");

        String rid = requestId(resource.stop(job, "{\"targetDirectory\": \"/data/savepoints/final\", \"drain\": true}"));

        assertThat(engine.jobs.get("a").drained).isTrue();
        assertThat(engine.jobs.get("a").savepointDirectory).isEqualTo(Path.of("/data/savepoints/final"));
        engine.jobs.get("a").stop.complete(Path.of("/data/savepoints/final/savepoint-a-123456"));
        JsonObject done = JsonContract.json(resource.savepointStatus(job, rid));
        assertThat(done.getJsonObject("operation").getString("location")).isEqualTo("/data/savepoints/final/savepoint-a-123456");
    }

    @Test
    void cancelJobInASavepointRequestStopsWithoutDraining() {
        submit("a");

        requestId(resource.triggerSavepoint("a", "{\"cancel-job\": true}"));

        assertThat(engine.jobs.get("a").stop).isNotDone();
        assertThat(engine.jobs.get("a").drained).isFalse();
        assertThat(engine.jobs.get("a").savepointDirectory).isEqualTo(SAVEPOINTS);
    }

    @Test
    void checkpointRequestReportsTheFailureOfTheTrigger() {
        String job = submit("a"); // TestEngine's triggerCheckpoint fails with UnsupportedOperationException

        String rid = requestId(resource.triggerCheckpoint(job));

        JsonObject done = JsonContract.json(resource.checkpointStatus(job, rid));
        assertThat(done.getJsonObject("status").getString("id")).isEqualTo("COMPLETED");
        assertThat(done.getJsonObject("operation").getJsonObject("failure-cause").getString("class"))
                .isEqualTo("java.lang.UnsupportedOperationException");
    }

    @Test
    void targetOutsideTheSavepointDirectoryIs403NamingTheAllowedDirectory() {
        submit("a");

        for (String body : new String[] {"{\"target-directory\": \"/tmp/x\"}", "{\"target-directory\": \"../../etc\"}",
            "{\"target-directory\": \"/data/savepoints-evil\"}"}) {
            Response r = errorOf(() -> resource.triggerSavepoint("a", body));
            assertThat(r.getStatus()).as(body).isEqualTo(403);
            assertThat(error(r)).contains("/data/savepoints");
        }
        Response stop = errorOf(() -> resource.stop("a", "{\"targetDirectory\": \"/tmp/x\"}"));
        assertThat(stop.getStatus()).isEqualTo(403);
        assertThat(engine.jobs.get("a").savepointDirectory).as("nothing was triggered").isNull();
    }

    @Test
    void aSymbolicLinkInsideTheSavepointDirectoryLeadingOutsideIs403(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        Path savepoints = java.nio.file.Files.createDirectories(tmp.resolve("savepoints"));
        Path outside = java.nio.file.Files.createDirectories(tmp.resolve("elsewhere"));
        java.nio.file.Files.createSymbolicLink(savepoints.resolve("escape"), outside);
        java.nio.file.Files.createDirectories(savepoints.resolve("nightly"));
        JobsResource linked = new JobsResource(jobs, clock::get, tmp, new JobOperations(jobs, savepoints));
        submit("a");

        Response r = errorOf(() -> linked.triggerSavepoint("a", "{\"target-directory\": \"escape/new\"}"));
        assertThat(r.getStatus()).isEqualTo(403);
        assertThat(error(r)).contains("symbolic link").contains(outside.toRealPath().toString());
        assertThat(errorOf(() -> linked.submit(TestPlugins.job("b", 2), null, null, "escape/savepoint-b-0a0b0c", false))
                .getStatus()).isEqualTo(403);
        assertThat(engine.jobs.get("a").savepointDirectory).as("nothing was triggered").isNull();
        assertThat(linked.triggerSavepoint("a", "{\"target-directory\": \"nightly\"}").getStatus()).isEqualTo(202);
    }

    @Test
    void unknownJobIs404() {
        assertThat(errorOf(() -> resource.triggerSavepoint("nope", null)).getStatus()).isEqualTo(404);
        assertThat(errorOf(() -> resource.stop("nope", null)).getStatus()).isEqualTo(404);
        assertThat(errorOf(() -> resource.triggerCheckpoint("nope")).getStatus()).isEqualTo(404);
    }

    @Test
    void unknownRequestIdIs404AndCheckpointIdsAreNotSavepointIds() {
        String job = submit("a");
        String checkpoint = requestId(resource.triggerCheckpoint(job));

        assertThat(errorOf(() -> resource.savepointStatus(job, "0".repeat(32))).getStatus()).isEqualTo(404);
        assertThat(errorOf(() -> resource.savepointStatus(job, checkpoint)).getStatus()).isEqualTo(404);
    }

    @Test
    void onlyTheNewest64RequestIdsPerJobAreKept() {
        String job = submit("a");
        String other = submit("b");
        String otherRequest = requestId(resource.triggerSavepoint(other, ""));
        String first = requestId(resource.triggerSavepoint(job, ""));
        String second = requestId(resource.triggerSavepoint(job, ""));
        for (int i = 0; i < JobOperations.DEFAULT_RETAINED - 1; i++) {
            requestId(resource.triggerCheckpoint(job));
        }

        Response forgotten = errorOf(() -> resource.savepointStatus(job, first));
        assertThat(forgotten.getStatus()).isEqualTo(404);
        assertThat(error(forgotten)).contains("'" + first + "'").contains("newest 64 operations per job");
        assertThat(JsonContract.json(resource.savepointStatus(job, second)).getJsonObject("status").getString("id"))
                .isEqualTo("IN_PROGRESS");
        assertThat(JsonContract.json(resource.savepointStatus(other, otherRequest)).getJsonObject("status").getString("id"))
                .as("another job's operations are not evicted").isEqualTo("IN_PROGRESS");
    }

    @Test
    void jobNotRunningIs409() {
        submit("a");
        engine.finish("a");

        Response r = errorOf(() -> resource.triggerSavepoint("a", null));
        assertThat(r.getStatus()).isEqualTo(409);
        assertThat(error(r)).contains("FINISHED");
        assertThat(errorOf(() -> resource.stop("a", null)).getStatus()).isEqualTo(409);
        assertThat(errorOf(() -> resource.triggerCheckpoint("a")).getStatus()).isEqualTo(409);
    }

    @Test
    void badBodyIs400() {
        submit("a");

        for (String body : new String[] {"not json", "[1]", "{\"target-directory\": 5}", "{\"cancel-job\": \"yes\"}",
            "{\"targetDirectory\": \"/data/savepoints\"}"}) {
            Response r = errorOf(() -> resource.triggerSavepoint("a", body));
            assertThat(r.getStatus()).as(body).isEqualTo(400);
        }
        assertThat(errorOf(() -> resource.stop("a", "{\"drain\": 1}")).getStatus()).isEqualTo(400);
        assertThat(engine.jobs.get("a").savepointDirectory).as("nothing was triggered").isNull();
    }

    @Test
    void submitFromASavepointInsideTheSavepointDirectorySetsFlinksRestoreOptions() {
        Response r = resource.submit(TestPlugins.job("b", 2), null, null, "nightly/savepoint-b-0a0b0c", true);

        assertThat(r.getStatus()).isEqualTo(202);
        java.util.Map<String, Object> config = jobs.find("b").graph().config().toMap();
        assertThat(String.valueOf(config.get("execution.savepoint.path"))).isEqualTo("/data/savepoints/nightly/savepoint-b-0a0b0c");
        assertThat(String.valueOf(config.get("execution.savepoint.ignore-unclaimed-state"))).isEqualTo("true");
    }

    @Test
    void submitFromASavepointOutsideTheSavepointDirectoryIs403EvenThroughSet() {
        assertThat(errorOf(() -> resource.submit(TestPlugins.job("b", 2), null, null, "/tmp/savepoint-b-0a0b0c", false))
                .getStatus()).isEqualTo(403);
        assertThat(errorOf(() -> resource.submit(TestPlugins.job("b", 2), null,
                java.util.List.of("execution.savepoint.path=/tmp/savepoint-b-0a0b0c"), null, false)).getStatus()).isEqualTo(403);
        String inSpec = TestPlugins.job("b", 2).replaceFirst("\\{", "{\"config\": {\"execution.savepoint.path\": \"/tmp/savepoint-b-0a0b0c\"},");
        assertThat(inSpec).contains("\"config\": {\"execution.savepoint.path\"");
        Response spec = errorOf(() -> resource.submit(inSpec, null, null, null, false));
        assertThat(spec.getStatus()).as("a savepoint path in the spec's own config is checked too").isEqualTo(403);
        assertThat(errorOf(() -> resource.submit(TestPlugins.job("b", 2), null, null, null, true)).getStatus()).isEqualTo(400);
        assertThat(engine.submitted).isEmpty();
    }
}
