package io.weir.plugin.kafkasink;

import io.weir.kafka.testkit.KafkaTestBroker;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.internals.AppInfoParser;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Guards the reflection in {@link KafkaInternals} against the real broker: if a kafka-clients
 * upgrade changes the internals, these fail the build.
 */
class KafkaInternalsTest {
    @TempDir
    static Path dir;
    static KafkaTestBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        // the broker aborts timed-out transactions every 200 ms instead of every 10 s
        broker = KafkaTestBroker.start(dir, Map.of("transaction.abort.timed.out.transaction.cleanup.interval.ms", "200"));
        broker.createTopics(1, "resume", "lost");
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void kafkaClientsIsThePinnedVersion() {
        assertThat(AppInfoParser.getVersion()).isEqualTo(KafkaInternals.PINNED_VERSION);
    }

    @Test
    void resumedTransactionOfAnAbandonedProducerCommitsExactlyOnce() {
        KafkaProducer<byte[], byte[]> writer = producer("tx-resume", 60_000);
        writer.initTransactions();
        writer.beginTransaction();
        for (int i = 0; i < 5; i++) {
            writer.send(new ProducerRecord<>("resume", ("r" + i).getBytes(StandardCharsets.UTF_8)));
        }
        writer.flush();
        KafkaInternals.ProducerIdAndEpoch id = KafkaInternals.producerIdAndEpoch(writer);
        assertThat(id.producerId()).isGreaterThanOrEqualTo(0);
        // the writer is abandoned without commit or abort, as by a crash (its network thread stays silent)
        assertThat(broker.readAll("resume", true)).isEmpty();

        for (int attempt = 0; attempt < 2; attempt++) { // the second commit is a no-op
            try (KafkaProducer<byte[], byte[]> resumer = producer("tx-resume", 60_000)) {
                KafkaInternals.resumeTransaction(resumer, id);
                resumer.commitTransaction();
            }
        }
        KafkaSinkTest.awaitCommitted(() -> assertThat(broker.readAll("resume", true)).containsExactly("r0", "r1", "r2", "r3", "r4"));
        writer.close(Duration.ZERO);
    }

    @Test
    void resumingATransactionTheBrokerAbortedOnTimeoutFails() throws Exception {
        KafkaProducer<byte[], byte[]> writer = producer("tx-lost", 1_000);
        writer.initTransactions();
        writer.beginTransaction();
        writer.send(new ProducerRecord<>("lost", "x".getBytes(StandardCharsets.UTF_8)));
        writer.flush();
        KafkaInternals.ProducerIdAndEpoch id = KafkaInternals.producerIdAndEpoch(writer);
        writer.close(Duration.ZERO);
        try (var admin = broker.admin()) {
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
                var st = admin.describeTransactions(List.of("tx-lost")).all().get().get("tx-lost").state();
                System.out.println("STATE " + st);
                return st == org.apache.kafka.clients.admin.TransactionState.COMPLETE_ABORT;
            });
        }
        try (KafkaProducer<byte[], byte[]> resumer = producer("tx-lost", 1_000)) {
            KafkaInternals.resumeTransaction(resumer, id);
            assertThatThrownBy(resumer::commitTransaction).satisfies(e -> System.out.println("LOST: " + e));
        }
        assertThat(broker.readAll("lost", true)).isEmpty();
    }

    private static KafkaProducer<byte[], byte[]> producer(String txId, int timeoutMs) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txId);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, timeoutMs);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }
}
