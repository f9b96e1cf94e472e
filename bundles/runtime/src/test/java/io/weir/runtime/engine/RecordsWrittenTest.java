package io.weir.runtime.engine;

import io.weir.core.config.Configuration;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link JobHandle#recordsWritten()} (the REST API's {@code write-records}): rows an operator sent to other
 * tasks, per operator over all its subtasks; operators whose output stays in their task have no entry.
 */
class RecordsWrittenTest {
    @TempDir
    Path tmp;
    private final LocalEngine engine = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty());

    @AfterEach
    void stopEngine() {
        engine.close();
    }

    @Test
    void aSourceCountsEveryRowItSentOverTheNetworkAndASinkNone() throws Exception {
        // 2 source subtasks rebalance into 3 pass-through subtasks (network), which chain into the sink (forward)
        String json = """
                {"name": "counted", "config": {"execution.checkpointing.dir": "checkpoints"},
                 "operators": [
                   {"id": "src", "type": "datagen", "parallelism": 2, "config": {"limit": 1001}},
                   {"id": "pass", "type": "filter", "parallelism": 3,
                    "inputs": [{"from": "src", "partitioning": "rebalance"}],
                    "config": {"field": "seq", "op": ">=", "value": 0}},
                   {"id": "out", "type": "discard", "parallelism": 3, "inputs": ["pass"]}]}
                """;
        JobGraph job = new JobSpecParser(engine.services().plugins(), JsonProvider.provider()).parse(json, tmp, Map.of());
        JobHandle handle = engine.submit(job, stats -> { });

        assertThat(handle.result().get(60, TimeUnit.SECONDS).status()).isEqualTo(JobStatus.FINISHED);
        assertThat(handle.recordsWritten()).isEqualTo(Map.of("src", 1001L));
    }
}
