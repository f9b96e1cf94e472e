package io.weir.runtime;

import io.weir.core.config.Configuration;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.InvalidJobException;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.runtime.engine.LocalEngine;
import jakarta.json.JsonObject;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Watermarks through real tasks and channels: idle source subtasks, late rows into a side output. */
class EventTimeJobTest {
    @TempDir
    Path tmp;
    private LocalEngine engine;

    @BeforeEach
    void startEngine() {
        engine = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty());
    }

    @AfterEach
    void stopEngine() {
        engine.close();
    }

    private JobGraph parse(String json) throws InvalidJobException {
        return new JobSpecParser(engine.services().plugins(), JsonProvider.provider()).parse(json, tmp, Map.of());
    }

    /** held-open source (p=2; subtask 1 never emits) → hash → hourly count → 2PC sink. */
    private String idleJob(String idleTimeout) {
        return """
                {"name": "idle-source",
                 "config": {"execution.checkpointing.dir": "%s", "execution.checkpointing.interval": "20 ms",
                            "pipeline.auto-watermark-interval": "10 ms"},
                 "operators": [
                   {"id": "src", "type": "test-held-open", "parallelism": 2,
                    "config": {"dates": ["2001-01-01T00:10:00Z", "2001-01-01T00:50:00Z", "2001-01-01T01:20:00Z", "2001-01-01T02:30:00Z"],
                               "timestamp-field": "date" %s}},
                   {"id": "hourly", "type": "window-aggregate", "parallelism": 1,
                    "inputs": [{"from": "src", "partitioning": "hash", "keys": ["k"]}],
                    "config": {"key": "k", "timestamp-field": "date", "window": "tumbling", "size": "1 h",
                               "aggregates": [{"fn": "count", "as": "n"}]}},
                   {"id": "out", "type": "file-2pc", "parallelism": 1, "inputs": ["hourly"], "config": {"path": "%s"}}
                 ]}
                """.formatted(tmp.resolve("checkpoints"), idleTimeout == null ? "" : ", \"watermark.idle-timeout\": \"" + idleTimeout + "\"",
                tmp.resolve("out"));
    }

    @Test
    void idleSourceSubtaskDoesNotStallWindows() throws Exception {
        JobHandle job = engine.submit(parse(idleJob("50 ms")), new JobRun());
        try {
            // subtask 0's watermark reaches 02:29:59.999: the windows of hours 0 and 1 fire although subtask 1 never emits
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(committedCounts()).containsExactlyInAnyOrder(
                    "0:2", "1:1"));
        } finally {
            job.cancel();
            job.result().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void withoutIdleTimeoutASilentSubtaskHoldsTheWatermarkBack() throws Exception {
        JobRun run = new JobRun();
        JobHandle job = engine.submit(parse(idleJob(null)), run);
        try {
            // the sink commits at every checkpoint: after 10 of them nothing has fired (subtask 1's watermark is MIN)
            await().atMost(Duration.ofSeconds(60)).until(() -> run.completed.size() >= 10);
            assertThat(committedCounts()).isEmpty();
        } finally {
            job.cancel();
            job.result().get(30, TimeUnit.SECONDS);
        }
    }

    /** @return "hour:count" of every committed window row */
    private List<String> committedCounts() throws Exception {
        List<String> out = new ArrayList<>();
        if (!Files.isDirectory(tmp.resolve("out"))) {
            return out;
        }
        for (JsonObject o : FlightData.committedRows(tmp.resolve("out"))) {
            long hour = (o.getJsonNumber("window_start").longValue() - 978307200000L) / 3_600_000L;
            out.add(hour + ":" + o.getJsonNumber("n").longValue());
        }
        return out;
    }

    @Test
    void rowsTooLateForEveryWindowGoToTheSideOutputConsumedDownstream() throws Exception {
        // 10 rows of hours 0..9, 1500 filler rows of hour 9, then 3 rows of hour 0. A throttled filter (1 ms per row)
        // backpressures the source long before the filler ends; while blocked the source emits its watermark (hour 9),
        // which reaches the window behind the rows before it and before the 3 late rows: they are late for sure.
        StringBuilder data = new StringBuilder("[");
        for (int h = 0; h < 10; h++) {
            data.append(row(h, 0)).append(',');
        }
        for (int i = 0; i < 1500; i++) {
            data.append(row(9, i % 60)).append(',');
        }
        data.append(row(0, 1)).append(',').append(row(0, 2)).append(',').append(row(0, 3)).append(']');
        Files.writeString(tmp.resolve("late.json"), data);
        String json = """
                {"name": "late-rows",
                 "config": {"execution.checkpointing.dir": "%s", "execution.checkpointing.interval": "50 ms",
                            "taskmanager.memory.segment-size": "2048", "pipeline.auto-watermark-interval": "1 ms"},
                 "operators": [
                   {"id": "src", "type": "file", "parallelism": 1,
                    "config": {"path": "late.json", "schema": {"k": "string", "date": "string", "delay": "long"}, "timestamp-field": "date"}},
                   {"id": "slow", "type": "filter", "parallelism": 1, "inputs": [{"from": "src", "partitioning": "rebalance"}],
                    "config": {"field": "delay", "op": ">=", "value": 0, "sleep-ms-per-record": 1}},
                   {"id": "hourly", "type": "window-aggregate", "parallelism": 2,
                    "inputs": [{"from": "slow", "partitioning": "hash", "keys": ["k"]}],
                    "config": {"key": "k", "timestamp-field": "date", "window": "tumbling", "size": "1 h", "late-output": "late",
                               "aggregates": [{"fn": "count", "as": "n"}]}},
                   {"id": "out", "type": "file-2pc", "parallelism": 1, "inputs": [{"from": "hourly", "partitioning": "rebalance"}],
                    "config": {"path": "%s"}},
                   {"id": "late-out", "type": "file-2pc", "parallelism": 1,
                    "inputs": [{"from": "hourly", "output": "late", "partitioning": "rebalance"}], "config": {"path": "%s"}}
                 ]}
                """.formatted(tmp.resolve("checkpoints"), tmp.resolve("out"), tmp.resolve("late"));
        JobRun run = JobRun.run(engine, json, tmp, Map.of());

        assertThat(run.result.status()).isEqualTo(JobStatus.FINISHED);
        List<String> counts = committedCounts();
        List<String> expected = new ArrayList<>();
        for (int h = 0; h < 9; h++) {
            expected.add(h + ":1");
        }
        expected.add("9:1501");
        assertThat(counts).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(FlightData.committedRows(tmp.resolve("late"))).extracting(o -> o.getString("date"))
                .containsExactlyInAnyOrder("2001-01-01T00:01:00Z", "2001-01-01T00:02:00Z", "2001-01-01T00:03:00Z");
    }

    private static String row(int hour, int minute) {
        return "{\"k\": \"a\", \"date\": \"2001-01-01T%02d:%02d:00Z\", \"delay\": 1}".formatted(hour, minute);
    }

    @Test
    void sideOutputTheOperatorDoesNotDeclareIsRefusedNamingIt() {
        String json = """
                {"name": "bad", "operators": [
                   {"id": "src", "type": "datagen", "config": {"rate": 1}},
                   {"id": "hourly", "type": "window-aggregate", "inputs": [{"from": "src", "partitioning": "hash", "keys": ["key"]}],
                    "config": {"key": "key", "timestamp-field": "ts", "window": "tumbling", "size": "1 h", "aggregates": [{"fn": "count"}]}},
                   {"id": "out", "type": "discard", "inputs": ["hourly"]},
                   {"id": "late", "type": "discard", "inputs": [{"from": "hourly", "output": "late"}]}
                 ]}
                """;
        assertThatThrownBy(() -> parse(json)).isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("operators[3].inputs[0].output 'late' is not a side output of 'hourly'")
                .hasMessageContaining("late-output");
    }
}
