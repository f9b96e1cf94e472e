package io.weir.console;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console on a real Liberty server (Arquillian liberty-managed, one server for the run) against a real Weir node
 * started here with a backpressured job (datagen 2000 rows/s of 1 KB → a counter sleeping 10 ms per row, parallelism 2,
 * aligned checkpoints every second: the {@code bp} benchmark shape). The tests run in order: the last one stops the
 * node and checks that the console reports it down and keeps answering. The node is stopped in {@code @AfterAll} also
 * when a test failed; Arquillian stops Liberty at the end of the run.
 */
@ExtendWith(ArquillianExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleIT {
    private static final Path WORK = Path.of("target/console-it").toAbsolutePath();
    private static final int NODE_PORT = freePort();
    private static final String JOB = "bp-console";
    private static final String OPERATOR_PASSWORD = "op-" + Long.toHexString(System.nanoTime());
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private static final String CONSOLE = "http://127.0.0.1:" + System.getProperty("console.http.port", "9080");
    /** A shipped plugin left out of the node's plugins/ so that the test can upload it through the console. */
    private static final String UPLOADED = "weir-sink-kafka-";
    /** A file in the node's plugins/ that is not a jar: the console must show it as a bad plugin. */
    private static final String BAD_PLUGIN = "broken.jar";

    private static WeirNode node;

    /** The built WAR with this run's configuration: the node, its token file, two users, fast polling. */
    @Deployment(testable = false)
    static WebArchive console() {
        String config = String.join("\n",
                "weir.console.nodes=it=http://127.0.0.1:" + NODE_PORT,
                "weir.console.node.it.token-file=" + WORK.resolve("data/security/admin.token"),
                "weir.console.users=olga:" + OPERATOR_PASSWORD + ":operator,vic:viewer-pw:viewer",
                "weir.console.poll-interval-ms=500",
                "weir.console.connect-timeout-ms=1000",
                "weir.console.read-timeout-ms=10000",
                "weir.console.stale-intervals=30");
        return ShrinkWrap.createFromZipFile(WebArchive.class, new File("target/console.war"))
                .addAsResource(new StringAsset(config), "META-INF/microprofile-config.properties");
    }

    @BeforeAll
    static void startNodeWithBackpressuredJob() throws Exception {
        deleteRecursively(WORK);
        Files.createDirectories(WORK);
        node = new WeirNode(WORK, NODE_PORT, UPLOADED);
        node.start();
        Files.writeString(node.pluginsDir().resolve(BAD_PLUGIN), "this is a text file, not a jar\n");
        String spec = """
                {"name": "%s",
                 "config": {"execution.checkpointing.interval": "1 s", "execution.checkpointing.dir": "%s"},
                 "operators": [
                  {"id": "source", "type": "datagen", "parallelism": 2, "config": {"record-size": 1000, "keys": 16, "rate": 2000}},
                  {"id": "counter", "type": "keyed-aggregate", "parallelism": 2,
                   "inputs": [{"from": "source", "partitioning": "hash", "keys": ["key"]}],
                   "config": {"key": ["key"], "aggregates": [{"fn": "count", "as": "count"}], "sleep-ms-per-record": 10}},
                  {"id": "sink", "type": "file-2pc", "parallelism": 2, "inputs": [{"from": "counter", "partitioning": "forward"}],
                   "config": {"path": "%s"}}]}
                """.formatted(JOB, WORK.resolve("checkpoints"), WORK.resolve("out"));
        submit(spec);
        await("two completed checkpoints").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250))
                .until(() -> json(get(node.url() + "/jobs/" + JOB + "/checkpoints")).asJsonObject().getJsonObject("counts").getInt("completed") >= 2);
    }

    @AfterAll
    static void stopNode() throws InterruptedException {
        if (node != null) {
            node.stop();
        }
    }

    @Test
    @Order(1)
    void jobsListsTheRunningJobWithItsLastCheckpointAndRate() throws Exception {
        JsonObject row = await("the job with a checkpoint and a rate in GET /api/jobs").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(250)).until(() -> jobRow(json(get(CONSOLE + "/console/api/jobs"))),
                        r -> r != null && r.containsKey("lastCheckpointId") && r.getJsonNumber("recordsPerSecond").doubleValue() > 0);

        assertThat(row.getString("node")).isEqualTo("it");
        assertThat(row.getString("state")).isEqualTo("RUNNING");
        assertThat(row.getInt("parallelism")).isEqualTo(2);
        assertThat(row.getJsonNumber("lastCheckpointId").longValue()).isGreaterThanOrEqualTo(1);
        assertThat(row.getJsonNumber("lastCheckpointSize").longValue()).isPositive();
        assertThat(row.getJsonNumber("checkpointIntervalMs").longValue()).isEqualTo(1000);
        // the sources produce at most 2000 rows/s; backpressure holds them near the counter's ~200 rows/s
        assertThat(row.getJsonNumber("recordsPerSecond").doubleValue()).isBetween(1.0, 2500.0);
        JsonObject nodeStatus = json(get(CONSOLE + "/console/api/nodes")).asJsonArray().getJsonObject(0).asJsonObject();
        assertThat(nodeStatus.getBoolean("up")).isTrue();
    }

    @Test
    @Order(2)
    void jobPageHasGraphHistorySubtasksAndTheBackpressureDiagnosis() throws Exception {
        JsonObject page = await("a diagnosis naming backpressure").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> json(get(CONSOLE + "/console/api/jobs/it/" + JOB)).asJsonObject(),
                        p -> p.getJsonObject("diagnosis").getString("cause").equals("BACKPRESSURE"));

        JsonArray vertices = page.getJsonObject("job").getJsonArray("vertices");
        assertThat(vertices.stream().map(v -> v.asJsonObject().getString("id") + "/" + v.asJsonObject().getInt("parallelism")))
                .containsExactly("source/2", "counter/2", "sink/2");
        assertThat(page.getJsonObject("checkpoints").getJsonArray("history")).isNotEmpty();
        // source and counter are the tasks (the sink is chained into the counter), 2 subtasks each
        assertThat(page.getJsonArray("subtasks").stream().map(s -> s.asJsonObject().getString("vertex")))
                .containsExactlyInAnyOrder("source", "source", "counter", "counter");
        assertThat(page.getJsonObject("diagnosis").getString("text"))
                .contains("start delay on subtask").contains("of `counter`: backpressure — the barrier waited behind");

        long older = page.getJsonObject("checkpoints").getJsonArray("history").getJsonObject(1).getJsonNumber("id").longValue();
        JsonObject chosen = json(get(CONSOLE + "/console/api/jobs/it/" + JOB + "?checkpoint=" + older)).asJsonObject();
        assertThat(chosen.getJsonNumber("chosen").longValue()).isEqualTo(older);
        assertThat(chosen.getJsonArray("subtasks")).hasSize(4);
    }

    @Test
    @Order(3)
    void unknownNodeOrJobIs404WithAMessage() throws Exception {
        HttpResponse<String> noNode = send(HttpRequest.newBuilder(URI.create(CONSOLE + "/console/api/jobs/nope/" + JOB)).GET());
        assertThat(noNode.statusCode()).isEqualTo(404);
        assertThat(noNode.body()).as("a sentence the page can show, not an empty 404")
                .contains("no node 'nope' in this console's configuration; configured: [it]");
        HttpResponse<String> noJob = send(HttpRequest.newBuilder(URI.create(CONSOLE + "/console/api/jobs/it/nope")).GET());
        assertThat(noJob.statusCode()).isEqualTo(404);
        assertThat(noJob.body()).contains("no job with id or name 'nope'");
    }

    @Test
    @Order(4)
    void pluginsShowBundleStateTypesJobsAndErrorsAndTheStandaloneNodeHasNoCluster() throws Exception {
        JsonArray plugins = await("the datagen plugin used by " + JOB + ", and " + BAD_PLUGIN + " failed").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500)).until(ConsoleIT::plugins, ps -> find(ps, "io.weir.plugin.datagen") != null
                        && !find(ps, "io.weir.plugin.datagen").getJsonArray("jobs").isEmpty()
                        && find(ps, BAD_PLUGIN) != null && find(ps, BAD_PLUGIN).getString("state").equals("FAILED"));
        JsonObject datagen = find(plugins, "io.weir.plugin.datagen");

        assertThat(datagen.getString("state")).isEqualTo("ACTIVE");
        assertThat(datagen.getString("version")).startsWith("0.1.0.");
        assertThat(datagen.get("error")).isEqualTo(JsonValue.NULL);
        assertThat(datagen.getJsonArray("types").getJsonObject(0).getString("name")).isEqualTo("datagen");
        assertThat(datagen.getJsonArray("types").getJsonObject(0).getString("kind")).isEqualTo("source");
        assertThat(datagen.getJsonArray("jobs").getJsonObject(0).getString("name")).isEqualTo(JOB);
        assertThat(find(plugins, BAD_PLUGIN).getString("error")).startsWith(BAD_PLUGIN + " is not a jar (zip) file");
        assertThat(find(plugins, "io.weir.plugin.kafkasink")).as("left out of plugins/ for the upload test").isNull();

        JsonObject cluster = json(get(CONSOLE + "/console/api/nodes/it/cluster")).asJsonObject();
        assertThat(cluster.keySet()).as("a node started without --cluster answers GET /cluster with 404").containsExactly("available");
        assertThat(cluster.getBoolean("available")).isFalse();
    }

    @Test
    @Order(5)
    void loginRefusesAWrongPassword() throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(CONSOLE + "/console/api/login")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"user\":\"olga\",\"password\":\"wrong\"}")));
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.body()).contains("wrong user name or password");
    }

    @Test
    @Order(6)
    void actionWithoutTokenIs401() throws Exception {
        HttpResponse<String> r = send(post("/console/api/jobs/it/" + JOB + "/savepoint", null));
        assertThat(r.statusCode()).isEqualTo(401);
    }

    @Test
    @Order(7)
    void actionWithViewerRoleIs403() throws Exception {
        HttpResponse<String> r = send(post("/console/api/jobs/it/" + JOB + "/savepoint", login("vic", "viewer-pw")));
        assertThat(r.statusCode()).isEqualTo(403);
    }

    @Test
    @Order(8)
    void operatorTakesASavepointAndACheckpoint() throws Exception {
        String token = login("olga", OPERATOR_PASSWORD);

        HttpResponse<String> savepoint = send(post("/console/api/jobs/it/" + JOB + "/savepoint", token));
        assertThat(savepoint.statusCode()).as(savepoint.body()).isEqualTo(200);
        Path location = Path.of(json(savepoint.body()).asJsonObject().getString("location"));
        assertThat(location).isDirectory().startsWith(node.dataDir().resolve("savepoints"));
        assertThat(location.resolve("_metadata")).isRegularFile();

        HttpResponse<String> checkpoint = send(post("/console/api/jobs/it/" + JOB + "/checkpoint", token));
        assertThat(checkpoint.statusCode()).as(checkpoint.body()).isEqualTo(200);
        assertThat(json(checkpoint.body()).asJsonObject().getJsonNumber("checkpointId").longValue()).isPositive();
    }

    @Test
    @Order(9)
    void pluginUploadGoesToTheNodeAndItsAnswerComesBack() throws Exception {
        String token = login("olga", OPERATOR_PASSWORD);
        HttpResponse<String> notAJar = send(upload("not-a-plugin.jar", "not a jar".getBytes(StandardCharsets.UTF_8), token));
        assertThat(notAJar.statusCode()).as(notAJar.body()).isEqualTo(400);
        assertThat(json(notAJar.body()).asJsonObject().getJsonArray("errors").getString(0))
                .startsWith("node 'it': not-a-plugin.jar is not a jar (zip) file");

        byte[] jar = Files.readAllBytes(WeirNode.shippedPlugin(UPLOADED));
        HttpResponse<String> noToken = send(upload("kafka-sink.jar", jar, null));
        assertThat(noToken.statusCode()).isEqualTo(401);

        HttpResponse<String> good = send(upload("kafka-sink.jar", jar, token));
        assertThat(good.statusCode()).as(good.body()).isEqualTo(201);
        JsonObject installed = json(good.body()).asJsonObject();
        assertThat(installed.getString("bundle")).isEqualTo("io.weir.plugin.kafkasink");
        assertThat(installed.getString("state")).isEqualTo("ACTIVE");
        assertThat(installed.get("error")).isEqualTo(JsonValue.NULL);
        assertThat(installed.getJsonArray("types").getJsonObject(0).getString("name")).isEqualTo("kafka-2pc");
        assertThat(node.pluginsDir().resolve("kafka-sink.jar")).isRegularFile();
        assertThat(plugin("io.weir.plugin.kafkasink").getString("file")).isEqualTo("kafka-sink.jar");

        HttpResponse<String> again = send(upload("kafka-sink.jar", jar, token));
        assertThat(again.statusCode()).as("the node's 409 for an existing file, passed on").isEqualTo(409);
        assertThat(again.body()).contains("replace=true");
    }

    @Test
    @Order(10)
    void metricsHaveTheJobsCheckpointDurationsAndRate() throws Exception {
        String metrics = await("job metrics").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .until(() -> get(CONSOLE + "/metrics?scope=application"), m -> m.contains("weir_job_records_per_second"));

        String job = "job=\"" + JOB + "\"";
        long count = (long) sample(metrics, "weir_checkpoint_duration_milliseconds_count", job);
        assertThat(count).isGreaterThanOrEqualTo(2);
        double max = sample(metrics, "weir_checkpoint_duration_milliseconds_max", job);
        assertThat(max).isBetween(1.0, 60_000.0);
        assertThat(sample(metrics, "weir_checkpoint_size_bytes", job)).isBetween(100.0, 10_000_000.0);
        assertThat(sample(metrics, "weir_checkpoint_failures", job)).isEqualTo(0.0);
        assertThat(sample(metrics, "weir_job_restarts", job)).isEqualTo(0.0);
        assertThat(sample(metrics, "weir_job_records_per_second", job)).isBetween(0.0, 2500.0);
    }

    @Test
    @Order(11)
    void openApiDescribesTheConsoleApi() throws Exception {
        String doc = get(CONSOLE + "/openapi");
        assertThat(doc).contains("url: " + CONSOLE + "/console", "/api/jobs/{node}/{job}:", "/api/login:", "/api/jobs/{node}/{job}/savepoint:");
    }

    @Test
    @Order(12)
    void healthIsUpWhileTheNodeRuns() throws Exception {
        JsonObject ready = json(get(CONSOLE + "/health/ready")).asJsonObject();
        assertThat(ready.getString("status")).as(ready.toString()).isEqualTo("UP");
        assertThat(check(ready, "nodes").getJsonObject("data").getString("it")).isEqualTo("up");
        assertThat(check(ready, "checkpoints").getJsonObject("data").getString("it/" + JOB)).isEqualTo("ok");
        assertThat(json(get(CONSOLE + "/health/live")).asJsonObject().getString("status")).isEqualTo("UP");
    }

    @Test
    @Order(13)
    void browserShowsTheChartAndTheBackpressureDiagnosis() throws Exception {
        Path shots = Path.of(System.getProperty("screenshots.dir", "target/screenshots"));
        Files.createDirectories(shots);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File("/usr/bin/chromedriver"))
                .usingAnyFreePort().build();
        ChromeOptions options = new ChromeOptions().setBinary("/usr/bin/chromium")
                .addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,800");
        ChromeDriver browser = new ChromeDriver(service, options);
        try {
            WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(60));
            browser.get(CONSOLE + "/console/");
            wait.until(b -> b.findElements(By.cssSelector("#jobs tbody a")).size() == 1);
            assertThat(browser.findElement(By.cssSelector("#jobs tbody a")).getText()).isEqualTo(JOB);
            // the bad plugin is marked with its error; a standalone node has no cluster section
            WebElement bad = wait.until(b -> b.findElements(By.cssSelector("table.plugins tr.bad")).stream().findFirst().orElse(null));
            assertThat(bad.getAttribute("data-file")).isEqualTo(BAD_PLUGIN);
            assertThat(bad.getText()).contains("FAILED", BAD_PLUGIN + " is not a jar (zip) file");
            assertThat(browser.findElement(By.cssSelector("table.plugins tr[data-file='kafka-sink.jar']")).getText())
                    .contains("io.weir.plugin.kafkasink", "ACTIVE", "kafka-2pc (sink)");
            assertThat(browser.findElement(By.id("cluster-section")).isDisplayed()).isFalse();
            // an operator uploads a file that is not a plugin: the node's reason is shown, the page keeps working
            browser.findElement(By.id("login-user")).sendKeys("olga");
            browser.findElement(By.id("login-password")).sendKeys(OPERATOR_PASSWORD);
            browser.findElement(By.cssSelector("#login button")).click();
            wait.until(b -> b.findElement(By.id("who")).isDisplayed());
            Path notAPlugin = Files.writeString(WORK.resolve("notes.jar"), "not a jar either\n");
            browser.findElement(By.id("upload-file")).sendKeys(notAPlugin.toString());
            browser.findElement(By.cssSelector("#upload button[type=submit]")).click();
            String uploaded = wait.until(b -> {
                String t = b.findElement(By.id("upload-result")).getText();
                return t.startsWith("Upload of") ? t : null;
            });
            assertThat(uploaded).startsWith("Upload of notes.jar failed: node 'it': notes.jar is not a jar (zip) file");
            browser.executeScript("window.scrollTo(0, 0)");
            Files.copy(browser.getScreenshotAs(OutputType.FILE).toPath(), shots.resolve("console-jobs.png"), StandardCopyOption.REPLACE_EXISTING);

            // the jobs table is re-rendered by its poll: a link found just before a refresh is stale by the click
            wait.until(b -> {
                try {
                    b.findElement(By.cssSelector("#jobs tbody a")).click();
                    return true;
                } catch (StaleElementReferenceException rerendered) {
                    return null;
                }
            });
            wait.until(b -> "BACKPRESSURE".equals(b.findElement(By.id("diagnosis")).getAttribute("data-cause")));
            long points = (Long) wait.until(b -> {
                Object n = browser.executeScript("const c = Chart.getChart('duration-chart');"
                        + " return c ? c.data.datasets[0].data.filter(v => v !== null).length : 0;");
                return ((Long) n) >= 2 ? n : null;
            });
            assertThat(points).isGreaterThanOrEqualTo(2);
            assertThat(browser.findElement(By.id("diagnosis")).getText()).contains("backpressure");
            assertThat(browser.findElements(By.cssSelector("#subtasks tbody tr"))).hasSize(4);
            assertThat(browser.findElements(By.cssSelector("#graph .op"))).hasSize(3);
            Files.copy(browser.getScreenshotAs(OutputType.FILE).toPath(), shots.resolve("console-job.png"), StandardCopyOption.REPLACE_EXISTING);
        } finally {
            browser.quit();
            service.stop();
        }
    }

    @Test
    @Order(14)
    void operatorStopsOneJobWithASavepointAndCancelsAnother() throws Exception {
        String token = login("olga", OPERATOR_PASSWORD);
        submit(smallJob("to-stop"));
        submit(smallJob("to-cancel"));
        for (String job : new String[] {"to-stop", "to-cancel"}) {
            await(job + " running").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                    .until(() -> json(get(node.url() + "/jobs/" + job)).asJsonObject().getString("state").equals("RUNNING"));
        }

        HttpResponse<String> stop = send(post("/console/api/jobs/it/to-stop/stop", token));
        assertThat(stop.statusCode()).as(stop.body()).isEqualTo(200);
        assertThat(Path.of(json(stop.body()).asJsonObject().getString("location")).resolve("_metadata")).isRegularFile();
        assertThat(json(get(node.url() + "/jobs/to-stop")).asJsonObject().getString("state")).isEqualTo("FINISHED");

        HttpResponse<String> cancel = send(post("/console/api/jobs/it/to-cancel/cancel", token));
        assertThat(cancel.statusCode()).as(cancel.body()).isEqualTo(200);
        await("to-cancel CANCELED").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> json(get(node.url() + "/jobs/to-cancel")).asJsonObject().getString("state").equals("CANCELED"));
        HttpResponse<String> again = send(post("/console/api/jobs/it/to-cancel/cancel", token));
        assertThat(again.statusCode()).as("cancelling an ended job: the node's 409 passed on").isEqualTo(409);
    }

    @Test
    @Order(100)
    void nodeStoppedIsReportedDownAndTheConsoleKeepsAnswering() throws Exception {
        node.stop();

        AtomicReference<JsonObject> ready = new AtomicReference<>();
        await("readiness DOWN").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() -> {
            HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(CONSOLE + "/health/ready")).GET());
            ready.set(json(r.body()).asJsonObject());
            return r.statusCode() == 503;
        });
        assertThat(ready.get().getString("status")).isEqualTo("DOWN");
        assertThat(check(ready.get(), "nodes").getString("status")).isEqualTo("DOWN");
        assertThat(check(ready.get(), "nodes").getJsonObject("data").getString("it")).contains("not reachable");

        JsonObject nodeStatus = await("node shown down").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> json(get(CONSOLE + "/console/api/nodes")).asJsonArray().getJsonObject(0), n -> !n.getBoolean("up"));
        assertThat(nodeStatus.getString("error")).contains("not reachable");
        assertThat(json(get(CONSOLE + "/health/live")).asJsonObject().getString("status")).isEqualTo("UP");
        HttpResponse<String> page = send(HttpRequest.newBuilder(URI.create(CONSOLE + "/console/api/jobs/it/" + JOB)).GET());
        assertThat(page.statusCode()).isEqualTo(502);
        assertThat(page.body()).contains("node 'it'").contains("not reachable");
    }

    // ---- helpers ----------------------------------------------------------------------------------------------------

    /** The plugin of that bundle or file name in the console's {@code GET /api/nodes/it/plugins}, or null. */
    private static JsonObject plugin(String bundleOrFile) throws IOException, InterruptedException {
        return find(plugins(), bundleOrFile);
    }

    private static JsonArray plugins() throws IOException, InterruptedException {
        return json(get(CONSOLE + "/console/api/nodes/it/plugins")).asJsonObject().getJsonArray("plugins");
    }

    private static JsonObject find(JsonArray plugins, String bundleOrFile) {
        return plugins.stream().map(JsonValue::asJsonObject)
                .filter(p -> bundleOrFile.equals(p.getString("file", null)) || bundleOrFile.equals(p.getString("bundle", null)))
                .findFirst().orElse(null);
    }

    private static HttpRequest.Builder upload(String file, byte[] jar, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(CONSOLE + "/console/api/nodes/it/plugins?file=" + file))
                .timeout(Duration.ofSeconds(90)).header("Content-Type", "application/java-archive")
                .POST(HttpRequest.BodyPublishers.ofByteArray(jar));
        return token == null ? b : b.header("Authorization", "Bearer " + token);
    }

    /** A light job: datagen 50 rows/s -> discard, parallelism 1, checkpoints every second. */
    private static String smallJob(String name) {
        return """
                {"name": "%s",
                 "config": {"execution.checkpointing.interval": "1 s", "execution.checkpointing.dir": "%s"},
                 "operators": [
                  {"id": "gen", "type": "datagen", "parallelism": 1, "config": {"rate": 50, "keys": 4}},
                  {"id": "drop", "type": "discard", "parallelism": 1, "inputs": ["gen"]}]}
                """.formatted(name, WORK.resolve("checkpoints"));
    }

    private static void submit(String spec) throws IOException, InterruptedException {
        HttpResponse<String> submitted = HTTP.send(HttpRequest.newBuilder(URI.create(node.url() + "/jobs"))
                .header("Authorization", "Bearer " + Files.readString(node.tokenFile()).strip())
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(spec)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(submitted.statusCode()).as("submit: %s", submitted.body()).isEqualTo(202);
    }

    private static JsonObject jobRow(JsonValue snapshot) {
        return snapshot.asJsonObject().getJsonArray("jobs").stream().map(JsonValue::asJsonObject)
                .filter(j -> j.getString("name").equals(JOB)).findFirst().orElse(null);
    }

    private static JsonObject check(JsonObject health, String name) {
        return health.getJsonArray("checks").stream().map(JsonValue::asJsonObject).filter(c -> c.getString("name").equals(name))
                .findFirst().orElseThrow(() -> new AssertionError("no health check '" + name + "' in " + health));
    }

    /** The value of the Prometheus sample {@code name{...label...}}. */
    private static double sample(String metrics, String name, String label) {
        return metrics.lines().filter(l -> l.startsWith(name + "{") && l.contains(label)).findFirst()
                .map(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .orElseThrow(() -> new AssertionError("no sample " + name + " with " + label + " in:\n" + metrics));
    }

    private static String login(String user, String password) throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(CONSOLE + "/console/api/login")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"user\":\"" + user + "\",\"password\":\"" + password + "\"}")));
        assertThat(r.statusCode()).as("login %s: %s", user, r.body()).isEqualTo(200);
        return json(r.body()).asJsonObject().getString("token");
    }

    private static HttpRequest.Builder post(String path, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(CONSOLE + path)).timeout(Duration.ofSeconds(150))
                .POST(HttpRequest.BodyPublishers.noBody());
        return token == null ? b : b.header("Authorization", "Bearer " + token);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private static String get(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET());
        assertThat(r.statusCode()).as("GET %s: %s", url, r.body()).isEqualTo(200);
        return r.body();
    }

    private static JsonValue json(String body) {
        try (JsonReader r = Json.createReader(new StringReader(body))) {
            return r.readValue();
        }
    }

    private static int freePort() {
        try {
            return WeirNode.freePort();
        } catch (IOException e) {
            throw new IllegalStateException("no free loopback port", e);
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
