package io.weir.runtime.time;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.RowSerializer;
import io.weir.api.Schema;
import io.weir.api.operator.OperatorContext;
import io.weir.api.operator.StreamOperator;
import io.weir.api.operator.TimerService;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.state.KeyedStateStore;
import io.weir.api.state.OperatorStateStore;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.state.KeyHashVersion;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyedStateBackend;
import io.weir.core.state.KeyedStateBackendParameters;
import io.weir.plugin.basic.window.WindowAggregateFactory;
import io.weir.runtime.scheduler.MemoryStreams;
import io.weir.state.heap.HeapStateBackend;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code window-aggregate} operator driven row by row and watermark by watermark on the real heap backend and
 * timer service, so out-of-order, late and too-late rows are placed exactly where the test wants them.
 */
class WindowAggregateEventTimeTest {
    private static final Schema IN = Schema.builder().field("date", FieldType.STRING).field("origin", FieldType.STRING)
            .field("delay", FieldType.LONG).build();
    private static final Schema KEY = Schema.builder().field("origin", FieldType.STRING).build();
    private static final int MAX = 128;
    private static final long MIN = 60_000;
    private static final long HOUR = 3_600_000;
    /** 2001-01-01T00:00:00Z */
    private static final long DAY = Instant.parse("2001-01-01T00:00:00Z").toEpochMilli();

    /** One operator subtask on a heap backend with a manual clock. */
    private static final class Harness {
        final KeyedStateBackend backend;
        final KeyedTimerService timers;
        final StreamOperator op;
        final List<String> out = new ArrayList<>();
        final List<Row> late = new ArrayList<>();

        Harness(Map<String, Object> config, List<KeyGroupsStateHandle> restore) throws Exception {
            backend = new HeapStateBackend().createKeyedStateBackend(new KeyedStateBackendParameters("job", "win", 0, MAX,
                    new KeyGroupRange(0, MAX - 1), new RowSerializer(KEY), restore));
            timers = new KeyedTimerService(backend, new ProcessingTimeScheduler() {
                @Override
                public long now() {
                    return 0;
                }

                @Override
                public void wakeUpAt(long timestamp) {
                }

                @Override
                public void cancel() {
                }
            });
            PluginConfig pc = new PluginConfig("operators[1].config", config, Path.of("."));
            op = new WindowAggregateFactory().create(pc, IN);
            op.initializeState(context());
            op.open();
        }

        private OperatorContext context() {
            return new OperatorContext() {
                @Override
                public String jobName() {
                    return "job";
                }

                @Override
                public String operatorId() {
                    return "win";
                }

                @Override
                public int subtaskIndex() {
                    return 0;
                }

                @Override
                public int parallelism() {
                    return 1;
                }

                @Override
                public boolean isRestored() {
                    return false;
                }

                @Override
                public OperatorStateStore operatorState() {
                    throw new UnsupportedOperationException();
                }

                @Override
                public KeyedStateStore keyedState() {
                    return backend;
                }

                @Override
                public TimerService timerService() {
                    return timers;
                }

                @Override
                public void sideOutput(String outputName, Row row) {
                    assertThat(outputName).isEqualTo("late");
                    late.add(row);
                }
            };
        }

        void row(String date, String origin, long delay) throws Exception {
            Row key = new Row(KEY, origin);
            backend.setCurrentKey(key, KeyHashVersion.LEGACY.keyGroupFor(key, MAX));
            op.processElement(new Row(IN, date, origin, delay), r -> out.add(format(r)));
        }

        void watermark(long wm) throws Exception {
            timers.advanceWatermark(wm, (ts, key, domain) -> op.onTimer(ts, key, domain, r -> out.add(format(r))));
            op.processWatermark(wm, r -> out.add(format(r)));
        }

        /** origin [start minutes after DAY, end) count avg */
        private static String format(Row r) {
            return r.get(0) + " [" + ((Long) r.get(1) - DAY) / MIN + "," + ((Long) r.get(2) - DAY) / MIN + ") " + r.get(3) + " " + r.get(4);
        }
    }

    private static Map<String, Object> config(Object... windowSettings) {
        Map<String, Object> c = new java.util.HashMap<>(Map.of("key", "origin", "timestamp-field", "date",
                "timestamp-format", "yyyy/MM/dd HH:mm", "late-output", "late",
                "aggregates", List.of(Map.of("fn", "count", "as", "flights"), Map.of("fn", "avg", "field", "delay", "as", "avg_delay"))));
        for (int i = 0; i < windowSettings.length; i += 2) {
            c.put((String) windowSettings[i], windowSettings[i + 1]);
        }
        return c;
    }

    private static long at(int hour, int minute) {
        return DAY + hour * HOUR + minute * MIN;
    }

    @Test
    void tumblingWindowFiresOnceWhenTheWatermarkPassesItsEndIncludingOutOfOrderRows() throws Exception {
        Harness h = new Harness(config("window", "tumbling", "size", "1 h"), List.of());
        h.row("2001/01/01 00:47", "DTW", 10);
        h.row("2001/01/01 01:10", "DTW", 100);
        h.row("2001/01/01 00:05", "DTW", 20); // out of order, but its window has not fired: counted in it
        h.row("2001/01/01 00:30", "LAS", 7);
        h.watermark(at(1, 0) - 2);
        assertThat(h.out).isEmpty();
        h.watermark(at(1, 0) - 1); // the window's last millisecond is complete
        assertThat(h.out).containsExactlyInAnyOrder("DTW [0,60) 2 15.0", "LAS [0,60) 1 7.0");
        h.watermark(at(5, 0));
        assertThat(h.out).hasSize(3).last().isEqualTo("DTW [60,120) 1 100.0");
        h.watermark(Long.MAX_VALUE);
        assertThat(h.out).hasSize(3); // each window fired exactly once
    }

    @Test
    void lateRowWithinAllowedLatenessUpdatesTheWindowAndBeyondItGoesToTheSideOutput() throws Exception {
        Harness h = new Harness(config("window", "tumbling", "size", "1 h", "allowed-lateness", "30 min"), List.of());
        h.row("2001/01/01 00:10", "DTW", 10);
        h.watermark(at(1, 0)); // fired
        assertThat(h.out).containsExactly("DTW [0,60) 1 10.0");
        h.row("2001/01/01 00:20", "DTW", 30); // late, within 30 min of lateness: updated row at once
        assertThat(h.out).containsExactly("DTW [0,60) 1 10.0", "DTW [0,60) 2 20.0");
        h.watermark(at(1, 29)); // 00:59:59.999 + 30 min = 01:29:59.999 not yet passed
        h.row("2001/01/01 00:40", "DTW", 50);
        assertThat(h.out).hasSize(3).last().isEqualTo("DTW [0,60) 3 30.0");
        assertThat(h.late).isEmpty();
        h.watermark(at(1, 30)); // lateness over: window dropped, nothing emitted
        h.row("2001/01/01 00:50", "DTW", 70); // too late for every window
        assertThat(h.out).hasSize(3);
        assertThat(h.late).extracting(r -> r.get("date")).containsExactly("2001/01/01 00:50");
    }

    @Test
    void rowLateWithoutAllowedLatenessIsNotCountedInAnyWindow() throws Exception {
        Harness h = new Harness(config("window", "tumbling", "size", "1 h"), List.of());
        h.row("2001/01/01 00:10", "DTW", 10);
        h.watermark(at(1, 0) - 1);
        h.row("2001/01/01 00:59", "DTW", 99);
        h.row("2001/01/01 01:00", "DTW", 5); // not late: next window
        h.watermark(at(2, 0));
        assertThat(h.out).containsExactly("DTW [0,60) 1 10.0", "DTW [60,120) 1 5.0");
        assertThat(h.late).hasSize(1);
    }

    @Test
    void slidingWindowsCountARowInEveryWindowCoveringIt() throws Exception {
        Harness h = new Harness(config("window", "sliding", "size", "1 h", "slide", "30 min"), List.of());
        h.row("2001/01/01 00:45", "DTW", 10);
        h.watermark(Long.MAX_VALUE);
        assertThat(h.out).containsExactly("DTW [0,60) 1 10.0", "DTW [30,90) 1 10.0");
    }

    @Test
    void sessionWindowsMergeRowsCloserThanTheGap() throws Exception {
        Harness h = new Harness(config("window", "session", "gap", "30 min"), List.of());
        h.row("2001/01/01 00:00", "DTW", 10);
        h.row("2001/01/01 01:00", "DTW", 20); // a second session
        h.row("2001/01/01 00:30", "DTW", 30); // touches both: one session [00:00, 01:30)
        h.row("2001/01/01 03:00", "DTW", 40);
        h.watermark(Long.MAX_VALUE);
        assertThat(h.out).containsExactly("DTW [0,90) 3 20.0", "DTW [180,210) 1 40.0");
    }

    @Test
    void openWindowsAndTheirTimersSurviveASnapshotAndARestore() throws Exception {
        Harness h = new Harness(config("window", "tumbling", "size", "1 h"), List.of());
        h.row("2001/01/01 00:10", "DTW", 10);
        h.row("2001/01/01 00:20", "LAS", 20);
        KeyGroupsStateHandle handle = h.backend.snapshot(1, new MemoryStreams()).write();
        h.row("2001/01/01 00:30", "DTW", 1000); // after the checkpoint: lost by the restore, replayed by the source

        Harness restored = new Harness(config("window", "tumbling", "size", "1 h"), List.of(handle));
        restored.watermark(at(1, 0));
        assertThat(restored.out).containsExactlyInAnyOrder("DTW [0,60) 1 10.0", "LAS [0,60) 1 20.0");
    }

    @Test
    void badWindowSettingsAreRefusedNamingTheSetting() {
        assertThatThrownBy(() -> new Harness(config("window", "tumbling"), List.of()))
                .hasMessage("operators[1].config.size is required for tumbling windows (e.g. \"1 h\")");
        assertThatThrownBy(() -> new Harness(config("window", "sliding", "size", "1 h", "slide", "2 h"), List.of()))
                .hasMessageContaining("operators[1].config.slide must not exceed size");
        assertThatThrownBy(() -> new Harness(config("window", "hopping", "size", "1 h"), List.of()))
                .hasMessageContaining("operators[1].config.window must be tumbling, sliding or session");
        assertThatThrownBy(() -> new Harness(config("window", "tumbling", "size", "an hour"), List.of()))
                .hasMessageContaining("operators[1].config.size must be a duration");
    }
}
