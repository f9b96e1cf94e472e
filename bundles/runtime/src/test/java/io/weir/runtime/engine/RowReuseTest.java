package io.weir.runtime.engine;

import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.operator.Output;
import io.weir.api.operator.StreamOperator;
import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.PluginConfig;
import io.weir.core.config.Configuration;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.core.plugin.MapPluginRegistry;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Row reuse on the record path ({@link StreamOperator#retainsInputRows()}, {@link Output#retainsRows()}): a head that
 * keeps no input row is handed one reused row per task, and a head that keeps its rows gets rows that nothing
 * overwrites, whether they come from the network or from a source chained to it. The ground truth is datagen's
 * contract: seq 0 .. limit - 1 once each, key = seq mod keys.
 */
class RowReuseTest {
    private static final int ROWS = 2_000;
    private static final int KEYS = 7;
    @TempDir
    Path tmp;
    private final LocalEngine engine = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty());
    /** Every row object the probes were given, with the subtask that saw it (a row of one task is never another's). */
    private final Queue<Seen> seen = new ConcurrentLinkedQueue<>();

    private record Seen(int subtask, Row row, long key, long seq) {
    }

    @AfterEach
    void stopEngine() {
        engine.close();
    }

    @Test
    void aHeadThatKeepsNoInputRowGetsOneReusedRowPerTaskHoldingEachRecordWhileItIsProcessed() throws Exception {
        run(false, "{\"from\": \"src\", \"partitioning\": \"hash\", \"keys\": [\"key\"]}", 2);

        assertThat(seen).hasSize(ROWS);
        assertThat(seenWhileProcessed()).containsExactlyInAnyOrderElementsOf(groundTruth());
        for (int subtask = 0; subtask < 2; subtask++) {
            int s = subtask;
            assertThat(seen.stream().filter(x -> x.subtask() == s).map(Seen::row).distinct().count())
                    .as("row objects seen by subtask %d", s).isEqualTo(1);
        }
    }

    @Test
    void aHeadThatKeepsItsInputRowsFromTheNetworkFindsThemUnchangedAfterTheJob() throws Exception {
        run(true, "{\"from\": \"src\", \"partitioning\": \"hash\", \"keys\": [\"key\"]}", 2);

        assertDistinctRowsStillHoldingTheGroundTruth();
    }

    @Test
    void aHeadChainedToTheSourceThatKeepsItsInputRowsFindsThemUnchangedAfterTheJob() throws Exception {
        run(true, "\"src\"", 1);

        assertDistinctRowsStillHoldingTheGroundTruth();
    }

    private void assertDistinctRowsStillHoldingTheGroundTruth() {
        assertThat(seen).hasSize(ROWS);
        Map<Row, Boolean> objects = new IdentityHashMap<>();
        List<String> now = new ArrayList<>();
        for (Seen x : seen) {
            objects.put(x.row(), true);
            now.add(x.row().getLong(0) + "/" + x.row().getLong(1));
        }
        assertThat(objects).as("distinct row objects").hasSize(ROWS);
        assertThat(now).as("the kept rows' values after the job").containsExactlyInAnyOrderElementsOf(groundTruth());
        assertThat(seenWhileProcessed()).containsExactlyInAnyOrderElementsOf(groundTruth());
    }

    private List<String> seenWhileProcessed() {
        return seen.stream().map(x -> x.key() + "/" + x.seq()).toList();
    }

    private static List<String> groundTruth() {
        return LongStream.range(0, ROWS).mapToObj(seq -> (seq % KEYS) + "/" + seq).toList();
    }

    private void run(boolean retains, String input, int parallelism) throws Exception {
        ((MapPluginRegistry) engine.services().plugins()).addOperator(new ProbeFactory(retains));
        String json = """
                {"name": "reuse", "config": {"execution.checkpointing.dir": "checkpoints"},
                 "operators": [
                   {"id": "src", "type": "datagen", "parallelism": 1, "config": {"limit": %d, "keys": %d}},
                   {"id": "head", "type": "row-probe", "parallelism": %d, "inputs": [%s]},
                   {"id": "out", "type": "discard", "parallelism": %d, "inputs": ["head"]}]}
                """.formatted(ROWS, KEYS, parallelism, input, parallelism);
        JobGraph job = new JobSpecParser(engine.services().plugins(), JsonProvider.provider()).parse(json, tmp, Map.of());
        assertThat(engine.submit(job, stats -> { }).result().get(120, TimeUnit.SECONDS).status()).isEqualTo(JobStatus.FINISHED);
    }

    /** Operator type {@code row-probe}: records each row object it is given and its key and seq at that moment. */
    private final class ProbeFactory implements OperatorFactory {
        private final boolean retains;

        ProbeFactory(boolean retains) {
            this.retains = retains;
        }

        @Override
        public String type() {
            return "row-probe";
        }

        @Override
        public Schema outputSchema(PluginConfig config, Schema input) {
            return input;
        }

        @Override
        public StreamOperator create(PluginConfig config, Schema input) {
            return new StreamOperator() {
                private int subtask;

                @Override
                public void initializeState(io.weir.api.operator.OperatorContext context) {
                    subtask = context.subtaskIndex();
                }

                @Override
                public void processElement(Row row, Output out) {
                    seen.add(new Seen(subtask, row, row.getLong(0), row.getLong(1)));
                }

                @Override
                public boolean retainsInputRows() {
                    return retains;
                }
            };
        }
    }
}
