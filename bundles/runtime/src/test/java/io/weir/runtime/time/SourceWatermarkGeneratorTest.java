package io.weir.runtime.time;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.operator.Output;
import io.weir.api.time.TimestampExtractor;
import io.weir.core.config.WatermarkSettings;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SourceWatermarkGeneratorTest {
    private static final Schema SCHEMA = Schema.builder().field("date", FieldType.STRING).build();
    private final List<String> out = new ArrayList<>();
    private final SourceWatermarkGenerator.Emitter emitter = new SourceWatermarkGenerator.Emitter() {
        @Override
        public void emitWatermark(long watermark) {
            out.add("wm " + watermark);
        }

        @Override
        public void emitIdle(boolean idle) {
            out.add(idle ? "idle" : "active");
        }
    };

    private static Row row(String date) {
        return new Row(SCHEMA, date);
    }

    @Test
    void watermarkIsMaxTimestampMinusOutOfOrdernessMinusOne() throws Exception {
        // 2001/01/01 00:47 UTC = 978310020000 ms
        SourceWatermarkGenerator g = new SourceWatermarkGenerator(new WatermarkSettings(
                TimestampExtractor.of(SCHEMA, "date", "yyyy/MM/dd HH:mm"), 60_000, 0), 200);
        List<Row> passed = new ArrayList<>();
        Output o = g.wrap(passed::add);
        g.onPeriodicEmit(emitter);
        assertThat(out).as("no record yet: no watermark").isEmpty();
        o.collect(row("2001/01/01 00:47"));
        o.collect(row("2001/01/01 00:40")); // out of order: does not lower the maximum
        g.onPeriodicEmit(emitter);
        g.onPeriodicEmit(emitter); // unchanged: not emitted again
        g.onEndOfInput(emitter);
        assertThat(passed).hasSize(2);
        assertThat(out).containsExactly("wm " + (978310020000L - 60_000 - 1), "wm " + Long.MAX_VALUE);
    }

    @Test
    void quietSubtaskTurnsIdleAfterTheTimeoutAndActiveWithTheNextRecord() throws Exception {
        Schema s = Schema.builder().field("ts", FieldType.LONG).build();
        SourceWatermarkGenerator g = new SourceWatermarkGenerator(new WatermarkSettings(TimestampExtractor.of(s, "ts", null), 0, 500), 200);
        Output o = g.wrap(r -> { });
        o.collect(new Row(s, 1000L));
        g.onPeriodicEmit(emitter); // wm 999
        g.onPeriodicEmit(emitter); // quiet 200
        g.onPeriodicEmit(emitter); // quiet 400
        assertThat(out).containsExactly("wm 999");
        g.onPeriodicEmit(emitter); // quiet 600 >= 500
        assertThat(out).containsExactly("wm 999", "idle");
        o.collect(new Row(s, 2000L));
        g.onPeriodicEmit(emitter);
        assertThat(out).containsExactly("wm 999", "idle", "active", "wm 1999");
    }

    @Test
    void recordWithoutTimestampFailsNamingTheField() {
        SourceWatermarkGenerator g = new SourceWatermarkGenerator(new WatermarkSettings(TimestampExtractor.of(SCHEMA, "date", null), 0, 0), 200);
        Output o = g.wrap(r -> { });
        assertThatThrownBy(() -> o.collect(row("yesterday"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timestamp field 'date'").hasMessageContaining("yesterday");
        assertThatThrownBy(() -> o.collect(row(null))).hasMessageContaining("is null");
    }
}
