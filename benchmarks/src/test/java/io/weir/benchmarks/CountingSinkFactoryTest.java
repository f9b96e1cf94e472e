package io.weir.benchmarks;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.sink.TwoPhaseCommittingSink;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The count-sink's subtasks each count into their own {@link RowCounter} writer; the harness reads the sum. */
class CountingSinkFactoryTest {
    private static final Schema SCHEMA = Schema.builder().field("key", FieldType.LONG).build();

    @Test
    void rowsWrittenByConcurrentSubtasksAreAllCounted() throws Exception {
        RowCounter rows = new RowCounter();
        CountingSinkFactory factory = new CountingSinkFactory(rows);
        PluginConfig config = new PluginConfig("sink", Map.of(), Path.of("."));
        TwoPhaseCommittingSink<Long> first = factory.create(config, SCHEMA);
        TwoPhaseCommittingSink<Long> second = factory.create(config, SCHEMA);
        Row row = new Row(SCHEMA, 1L);

        Thread a = new Thread(() -> writeRows(first, row, 300_000));
        Thread b = new Thread(() -> writeRows(second, row, 200_001));
        a.start();
        b.start();
        a.join();
        b.join();

        assertThat(rows.sum()).isEqualTo(500_001);
        writeRows(factory.create(config, SCHEMA), row, 7);
        assertThat(rows.sum()).isEqualTo(500_008);
    }

    private static void writeRows(TwoPhaseCommittingSink<Long> sink, Row row, int n) {
        try {
            Long txn = sink.beginTransaction();
            for (int i = 0; i < n; i++) {
                sink.write(txn, row);
            }
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
