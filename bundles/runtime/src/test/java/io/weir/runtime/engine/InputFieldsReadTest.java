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
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link StreamOperator#inputFieldsRead()}: a task whose head reads from the network decodes only the fields the
 * head names and the key fields; a head that names none gets every field.
 */
class InputFieldsReadTest {
    private static final int ROWS = 1_000;
    @TempDir
    Path tmp;
    private final LocalEngine engine = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty());
    /** Per row the head saw: which of datagen's fields (key, seq, ts, payload) were non-null. */
    private final Queue<String> seen = new ConcurrentLinkedQueue<>();

    @AfterEach
    void stopEngine() {
        engine.close();
    }

    @Test
    void aKeyedHeadThatReadsSeqGetsTheKeyAndSeqDecodedAndTheOtherFieldsNull() throws Exception {
        runThroughProbe("[1]");

        assertThat(seen).hasSize(ROWS).containsOnly("key seq");
    }

    @Test
    void aHeadThatNamesNoFieldsGetsEveryField() throws Exception {
        runThroughProbe("null");

        assertThat(seen).hasSize(ROWS).containsOnly("key seq ts payload");
    }

    private void runThroughProbe(String read) throws Exception {
        ((MapPluginRegistry) engine.services().plugins()).addOperator(new ProbeFactory());
        String json = """
                {"name": "probe", "config": {"execution.checkpointing.dir": "checkpoints"},
                 "operators": [
                   {"id": "src", "type": "datagen", "parallelism": 1, "config": {"limit": %d, "keys": 7}},
                   {"id": "head", "type": "field-probe", "parallelism": 2, "inputs": [{"from": "src", "partitioning": "hash", "keys": ["key"]}],
                    "config": {"read": %s}},
                   {"id": "out", "type": "discard", "parallelism": 2, "inputs": ["head"]}]}
                """.formatted(ROWS, read);
        JobGraph job = new JobSpecParser(engine.services().plugins(), JsonProvider.provider()).parse(json, tmp, Map.of());
        assertThat(engine.submit(job, stats -> { }).result().get(120, TimeUnit.SECONDS).status()).isEqualTo(JobStatus.FINISHED);
    }

    /** Operator type {@code field-probe}, keyed by {@code key}: records which fields of each row are set. */
    private final class ProbeFactory implements OperatorFactory {
        @Override
        public String type() {
            return "field-probe";
        }

        @Override
        public Schema outputSchema(PluginConfig config, Schema input) {
            config.raw("read"); // asked, so not reported as unknown
            return input;
        }

        @Override
        public boolean requiresKeyedInput() {
            return true;
        }

        @Override
        public List<String> keyFields(PluginConfig config) {
            return List.of("key");
        }

        @Override
        public StreamOperator create(PluginConfig config, Schema input) {
            List<?> read = config.raw("read") instanceof List<?> l ? l : null;
            int[] positions = read == null ? null : read.stream().mapToInt(o -> ((Number) o).intValue()).toArray();
            return new StreamOperator() {
                @Override
                public void processElement(Row row, Output out) {
                    String[] names = {"key", "seq", "ts", "payload"};
                    StringBuilder set = new StringBuilder();
                    for (int i = 0; i < names.length; i++) {
                        if (row.get(i) != null) {
                            set.append(set.length() > 0 ? " " : "").append(names[i]);
                        }
                    }
                    seen.add(set.toString());
                }

                @Override
                public int[] inputFieldsRead() {
                    return positions;
                }
            };
        }
    }
}
