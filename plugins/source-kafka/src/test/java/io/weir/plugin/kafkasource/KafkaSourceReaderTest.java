package io.weir.plugin.kafkasource;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.SuppressRestartsException;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.source.PollStatus;
import io.weir.api.testing.InMemoryOperatorContext;
import io.weir.kafka.testkit.KafkaTestBroker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@code kafka} source's reader against a real broker (one per class). */
class KafkaSourceReaderTest {
    private static final Map<String, Object> SCHEMA = new LinkedHashMap<>(Map.of("id", "long"));
    static {
        SCHEMA.put("origin", "string");
    }

    @TempDir
    static Path dir;
    static KafkaTestBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = KafkaTestBroker.start(dir, Map.of());
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void boundedSubtasksSplitThePartitionsAndReadEachRecordOnce() throws Exception {
        broker.createTopics(3, "flights-a");
        List<String> expected = produce("flights-a", 3, 200);
        List<Row> rows = new ArrayList<>();
        List<KafkaSourceReader> readers = new ArrayList<>();
        for (int subtask = 0; subtask < 2; subtask++) {
            KafkaSourceReader reader = reader(Map.of("topics", List.of("flights-a"), "bounded", true));
            reader.initializeState(InMemoryOperatorContext.fresh(subtask, 2));
            readers.add(reader);
        }
        for (int p = 0; p < 3; p++) { // after every subtask's stop offsets
            broker.produce("flights-a", p, List.of("{\"id\": 99999" + p + ", \"origin\": \"late\"}"));
        }
        for (KafkaSourceReader reader : readers) {
            drain(reader, rows, Integer.MAX_VALUE);
            reader.close();
        }
        assertThat(ids(rows)).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void restoredReaderContinuesExactlyAfterTheCheckpointedPositions() throws Exception {
        broker.createTopics(2, "flights-b");
        List<String> expected = produce("flights-b", 2, 1500);
        InMemoryOperatorContext ctx = InMemoryOperatorContext.fresh(0, 1);
        KafkaSourceReader first = reader(Map.of("topics", List.of("flights-b"), "bounded", true));
        first.initializeState(ctx);
        List<Row> beforeCheckpoint = new ArrayList<>();
        drain(first, beforeCheckpoint, 700);
        first.snapshotState(1);
        Map<String, byte[]> snapshot = ctx.snapshotOperatorState();
        drain(first, new ArrayList<>(), 300); // emitted after the checkpoint: replayed after the restore
        first.close();

        KafkaSourceReader restored = reader(Map.of("topics", List.of("flights-b"), "bounded", true));
        restored.initializeState(InMemoryOperatorContext.restored(0, 1, snapshot));
        List<Row> afterRestore = new ArrayList<>();
        drain(restored, afterRestore, Integer.MAX_VALUE);
        restored.close();
        List<String> all = new ArrayList<>(ids(beforeCheckpoint));
        all.addAll(ids(afterRestore));
        assertThat(all).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void partitionsAddedAfterACheckpointAreReadFromTheEarliestOffsetWhileRunningAndAgainAfterARestore() throws Exception {
        broker.createTopics(2, "grow");
        List<String> before = produce("grow", 2, 100); // ids 0..199 in partitions 0 and 1
        InMemoryOperatorContext ctx = InMemoryOperatorContext.fresh(0, 1);
        Map<String, Object> unbounded = Map.of("topics", List.of("grow"), "partition-discovery-interval-ms", 50);
        KafkaSourceReader first = reader(unbounded);
        first.initializeState(ctx);
        List<Row> beforeCheckpoint = new ArrayList<>();
        drain(first, beforeCheckpoint, 200);
        first.snapshotState(1); // covers partitions 0 and 1, up to offset 100 each
        Map<String, byte[]> snapshot = ctx.snapshotOperatorState();

        try (org.apache.kafka.clients.admin.Admin admin = broker.admin()) {
            admin.createPartitions(Map.of("grow", org.apache.kafka.clients.admin.NewPartitions.increaseTo(4))).all()
                    .get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
        List<String> after = new ArrayList<>();
        for (int p = 0; p < 4; p++) { // 25 more in each old partition, 25 in each new one
            List<String> values = new ArrayList<>();
            for (int i = 0; i < 25; i++) {
                String id = String.valueOf(1000 + p * 100 + i);
                values.add("{\"id\": " + id + ", \"origin\": \"O\"}");
                after.add(id);
            }
            broker.produce("grow", p, values);
        }
        List<Row> whileRunning = new ArrayList<>();
        drain(first, whileRunning, after.size()); // the new partitions only if discovery found them
        first.close();
        assertThat(ids(whileRunning)).as("read while running, new partitions from offset 0").containsExactlyInAnyOrderElementsOf(after);

        // restored from checkpoint 1, which predates the new partitions: old ones from its offsets, new ones from the earliest
        KafkaSourceReader restored = reader(Map.of("topics", List.of("grow"), "partition-discovery-interval-ms", 0));
        restored.initializeState(InMemoryOperatorContext.restored(0, 1, snapshot));
        List<Row> afterRestore = new ArrayList<>();
        drain(restored, afterRestore, after.size());
        assertThat(restored.pollNext(afterRestore::add)).as("nothing more").isEqualTo(PollStatus.NOTHING_AVAILABLE);
        restored.close();
        assertThat(ids(beforeCheckpoint)).containsExactlyInAnyOrderElementsOf(before);
        assertThat(ids(afterRestore)).containsExactlyInAnyOrderElementsOf(after);
    }

    @Test
    void everyPartitionHasExactlyOneOwnerWhateverTheParallelism() {
        // the owner is a function of the partition alone, so subtasks listing the topics at different moments agree
        for (int parallelism = 1; parallelism <= 5; parallelism++) {
            for (String topic : List.of("flights", "a", "pat-2")) {
                java.util.Set<Integer> owners = new java.util.HashSet<>();
                for (int partition = 0; partition < parallelism; partition++) {
                    int owner = KafkaSourceReader.owner(new org.apache.kafka.common.TopicPartition(topic, partition), parallelism);
                    assertThat(owner).isBetween(0, parallelism - 1);
                    owners.add(owner);
                }
                assertThat(owners).as("the first %d partitions of %s spread over every subtask", parallelism, topic).hasSize(parallelism);
            }
        }
    }

    @Test
    void topicPatternAndStartFromTimestampAndLatest() throws Exception {
        broker.createTopics(1, "pat-1", "pat-2", "other");
        broker.produce("pat-1", 0, List.of("{\"id\": 1, \"origin\": \"A\"}"));
        broker.produce("other", 0, List.of("{\"id\": 2, \"origin\": \"B\"}"));
        long cut = System.currentTimeMillis() + 1; // records written from now on have timestamps >= cut - 1
        org.awaitility.Awaitility.await().until(() -> System.currentTimeMillis() > cut);
        broker.produce("pat-2", 0, List.of("{\"id\": 3, \"origin\": \"C\"}"));
        List<Row> rows = new ArrayList<>();
        KafkaSourceReader byPattern = reader(Map.of("topic-pattern", "pat-.*", "bounded", true));
        byPattern.initializeState(InMemoryOperatorContext.fresh(0, 1));
        drain(byPattern, rows, Integer.MAX_VALUE);
        byPattern.close();
        assertThat(ids(rows)).containsExactlyInAnyOrder("1", "3");

        rows.clear();
        KafkaSourceReader byTime = reader(Map.of("topic-pattern", "pat-.*", "bounded", true, "start-from", "timestamp",
                "start-timestamp-ms", cut));
        byTime.initializeState(InMemoryOperatorContext.fresh(0, 1));
        drain(byTime, rows, Integer.MAX_VALUE);
        byTime.close();
        assertThat(ids(rows)).containsExactly("3");

        KafkaSourceReader latest = reader(Map.of("topics", List.of("pat-1"), "bounded", true, "start-from", "latest"));
        latest.initializeState(InMemoryOperatorContext.fresh(0, 1));
        assertThat(latest.pollNext(row -> { })).isEqualTo(PollStatus.END_OF_INPUT);
        latest.close();
    }

    @Test
    void recordNotFittingTheSchemaFailsWithoutRestartsNamingTopicPartitionAndOffset() throws Exception {
        broker.createTopics(1, "bad");
        broker.produce("bad", 0, List.of("{\"id\": 1, \"origin\": \"A\"}", "{\"id\": \"one\", \"origin\": \"B\"}"));
        KafkaSourceReader reader = reader(Map.of("topics", List.of("bad"), "bounded", true));
        reader.initializeState(InMemoryOperatorContext.fresh(0, 1));
        assertThatThrownBy(() -> drain(reader, new ArrayList<>(), Integer.MAX_VALUE))
                .isInstanceOf(SuppressRestartsException.class)
                .hasMessageContaining("topic bad, partition 0, offset 1")
                .hasMessageContaining("field 'id': expected long, got \"one\"");
        reader.close();
    }

    @Test
    void checksNameAnUnreachableBrokerAndAMissingTopicBeforeTheJobStarts() throws Exception {
        int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        long start = System.nanoTime();
        assertThatThrownBy(() -> new KafkaSourceFactory().outputSchema(config(Map.of("bootstrap-servers", "127.0.0.1:" + closedPort,
                "topics", List.of("t"), "schema", SCHEMA))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sources[0].config.bootstrap-servers")
                .hasMessageContaining("127.0.0.1:" + closedPort);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
        assertThatThrownBy(() -> new KafkaSourceFactory().outputSchema(config(Map.of("bootstrap-servers", broker.bootstrapServers(),
                "topics", List.of("no-such-topic"), "schema", SCHEMA))))
                .hasMessageContaining("sources[0].config.topics").hasMessageContaining("topic 'no-such-topic' does not exist");
    }

    /** Polls until END_OF_INPUT or at least {@code max} rows; fails after 60 s. */
    private static void drain(KafkaSourceReader reader, List<Row> out, int max) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        int before = out.size();
        while (out.size() - before < max) {
            if (reader.pollNext(out::add) == PollStatus.END_OF_INPUT) {
                return;
            }
            assertThat(System.nanoTime()).as("reader did not finish within 60 s").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    private static List<String> produce(String topic, int partitions, int perPartition) {
        List<String> ids = new ArrayList<>();
        int id = 0;
        for (int p = 0; p < partitions; p++) {
            List<String> values = new ArrayList<>();
            for (int i = 0; i < perPartition; i++, id++) {
                values.add("{\"id\": " + id + ", \"origin\": \"O" + (id % 7) + "\", \"ignored\": [1, {\"x\": 2}]}");
                ids.add(String.valueOf(id));
            }
            broker.produce(topic, p, values);
        }
        return ids;
    }

    private static List<String> ids(List<Row> rows) {
        return rows.stream().map(r -> String.valueOf(r.get(0))).toList();
    }

    private static KafkaSourceReader reader(Map<String, Object> extra) {
        Map<String, Object> values = new HashMap<>(extra);
        values.put("bootstrap-servers", broker.bootstrapServers());
        values.put("schema", SCHEMA);
        return new KafkaSourceReader(KafkaSourceSettings.from(config(values)));
    }

    private static PluginConfig config(Map<String, Object> values) {
        return new PluginConfig("sources[0].config", new HashMap<>(values), Path.of("."));
    }
}
