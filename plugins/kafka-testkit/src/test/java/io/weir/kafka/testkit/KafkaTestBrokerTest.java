package io.weir.kafka.testkit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The test broker's writes: tests compute their expected output from what they produce, so a record
 * that is not written must fail the write, never pass unnoticed.
 */
class KafkaTestBrokerTest {
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
    void aRecordThatIsNotWrittenFailsTheWriteNamingTopicPartitionAndCount() {
        broker.createTopics(1, "too-big");
        // above the producer's max.request.size (1 MiB): refused by the client, the other record is written
        List<String> values = List.of("small", "x".repeat(2 * 1024 * 1024));
        assertThatThrownBy(() -> broker.produce("too-big", 0, values))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("1 of 2 records were not written to topic too-big partition 0")
                .hasMessageContaining("RecordTooLargeException");
        assertThat(broker.readAll("too-big", false)).containsExactly("small");
    }

    @Test
    void everyRecordWrittenRightAfterTopicCreationIsThereInOrder() {
        // several producer batches per partition (~430 such records fill one), written at once after creation:
        // the moment a first batch could be refused while the broker takes up the new partitions' leadership
        broker.createTopics(3, "fresh");
        List<String> expected = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            final int partition = p;
            List<String> values = IntStream.range(0, 1500).mapToObj(i -> "{\"partition\": " + partition + ", \"i\": " + i + "}").toList();
            broker.produce("fresh", p, values);
            expected.addAll(values);
        }
        assertThat(broker.readAll("fresh", false)).containsExactlyElementsOf(expected);
    }
}
