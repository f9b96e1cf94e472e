package io.weir.plugin.kafkasink;

import io.weir.core.config.Configuration;
import io.weir.core.engine.JobListener;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.kafka.testkit.KafkaTestBroker;
import io.weir.runtime.engine.LocalEngine;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code kafka} source and {@code kafka-2pc} sink against a broker that requires SASL_PLAINTEXT/PLAIN, configured
 * through {@code properties.*} settings (issue 11, "wrong credentials"): correct credentials run a job end to end
 * exactly once; wrong ones fail the job before it starts with an error naming the address and the authentication
 * failure; the password never appears in the log output (captured: slf4j-simple writes to {@code System.err}) or in
 * an error message.
 */
class KafkaSecurityTest {
    private static final String PASSWORD = "alice-s3cret-pw";
    private static final String WRONG_PASSWORD = "not-alices-pw-42";

    @TempDir
    static Path brokerDir;
    static KafkaTestBroker broker;
    @TempDir
    Path tmp;
    private LocalEngine engine;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = KafkaTestBroker.startWithSaslPlain(brokerDir, Map.of(), Map.of("alice", PASSWORD));
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @BeforeEach
    void startEngine() {
        engine = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty());
    }

    @AfterEach
    void stopEngine() {
        engine.close();
    }

    @Test
    void correctCredentialsRunSourceToSinkExactlyOnceAndThePasswordIsNeverLogged() throws Exception {
        broker.createTopics(2, "sec-in", "sec-out");
        List<String> input = IntStream.range(0, 300).mapToObj(i -> "record-" + i).toList();
        broker.produce("sec-in", 0, input.subList(0, 150));
        broker.produce("sec-in", 1, input.subList(150, 300));
        AtomicInteger restarts = new AtomicInteger();
        String log = captureStdErr(() -> {
            JobGraph graph = parse(job("secured", "sec-in", "sec-out", PASSWORD, PASSWORD));
            JobResult r = engine.submit(graph, new JobListener() {
                @Override
                public void onCompleted(io.weir.core.coordination.CompletedCheckpointStats stats) {
                }

                @Override
                public void onRestart(String jobName, int attempt, Throwable cause) {
                    restarts.incrementAndGet();
                }
            }).result().get(120, TimeUnit.SECONDS);
            assertThat(r.status()).as("%s", r.failure()).isEqualTo(JobStatus.FINISHED);
        });
        // read through the broker's PLAINTEXT listener: every record once, and only committed ones
        assertThat(broker.readAll("sec-out", true)).containsExactlyInAnyOrderElementsOf(input);
        assertThat(restarts).hasValue(0);
        assertThat(log).as("the capture saw the job's log").contains("kafka-2pc sink out subtask 0 of job secured");
        assertThat(log).doesNotContain(PASSWORD);
    }

    @Test
    void wrongCredentialsFailTheJobBeforeItStartsNamingTheAddressAndNeverShowThePassword() throws Exception {
        broker.createTopics(1, "sec-wrong-in", "sec-wrong-out");
        String[] message = new String[1];
        String log = captureStdErr(() -> assertThatThrownBy(() -> parse(job("wrong", "sec-wrong-in", "sec-wrong-out", WRONG_PASSWORD, PASSWORD)))
                .satisfies(e -> message[0] = e.getMessage()));
        assertThat(message[0]).contains("operators[0].config.properties.sasl.jaas.config")
                .contains(broker.saslBootstrapServers()).contains("authentication failed").doesNotContain(WRONG_PASSWORD);
        // the job file is refused by the parser: no job is submitted, so nothing can restart
        assertThat(log).doesNotContain(WRONG_PASSWORD);

        // the sink's own check, with a source that authenticates
        String sinkLog = captureStdErr(() -> assertThatThrownBy(() -> parse(job("wrong", "sec-wrong-in", "sec-wrong-out", PASSWORD, WRONG_PASSWORD)))
                .satisfies(e -> message[0] = e.getMessage()));
        assertThat(message[0]).contains("operators[1].config.properties.sasl.jaas.config")
                .contains(broker.saslBootstrapServers()).contains("authentication failed").doesNotContain(WRONG_PASSWORD);
        assertThat(sinkLog).doesNotContain(WRONG_PASSWORD);
    }

    @Test
    void aSettingTheConnectorOwnsIsRefusedNamingTheKey() {
        broker.createTopics(1, "sec-owned-in", "sec-owned-out");
        assertThatThrownBy(() -> parse(job("owned", "sec-owned-in", "sec-owned-out", PASSWORD, PASSWORD).replace("\"topic\": \"sec-owned-out\",",
                "\"topic\": \"sec-owned-out\", \"properties.transactional.id\": \"mine\",")))
                .hasMessageContaining("operators[1].config.properties.transactional.id is set by the connector itself");
    }

    private interface Action {
        void run() throws Exception;
    }

    /** Runs {@code action} with {@code System.err} (where slf4j-simple logs) captured, echoing it too; @return the capture */
    private static String captureStdErr(Action action) throws Exception {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream tee = new PrintStream(new java.io.OutputStream() {
            @Override
            public void write(int b) {
                captured.write(b);
                original.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                captured.write(b, off, len);
                original.write(b, off, len);
            }
        }, true, StandardCharsets.UTF_8);
        System.setErr(tee);
        try {
            action.run();
        } finally {
            System.setErr(original);
            tee.flush();
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    private JobGraph parse(String json) throws Exception {
        return new JobSpecParser(engine.services().plugins(), JsonProvider.provider())
                .parse(json, tmp, Map.of("execution.checkpointing.interval", "100 ms"));
    }

    /** A bounded job copying {@code in} to {@code out} (raw strings), both connectors on the SASL listener as alice. */
    private String job(String name, String in, String out, String sourcePassword, String sinkPassword) {
        String security = """
                "properties.security.protocol": "SASL_PLAINTEXT", "properties.sasl.mechanism": "PLAIN",
                "properties.sasl.jaas.config": %s""";
        String jaas = jsonString(KafkaTestBroker.plainJaasConfig("alice", sourcePassword));
        String sinkJaas = jsonString(KafkaTestBroker.plainJaasConfig("alice", sinkPassword));
        return """
                {"name": "%s",
                 "config": {"execution.checkpointing.dir": "%s"},
                 "operators": [
                   {"id": "in", "type": "kafka", "parallelism": 2, "config": {"bootstrap-servers": "%s", "topics": ["%s"],
                     "bounded": true, "format": "raw", "schema": {"line": "string"}, %s}},
                   {"id": "out", "type": "kafka-2pc", "parallelism": 2, "inputs": [{"from": "in", "partitioning": "rebalance"}],
                    "config": {"bootstrap-servers": "%s", "topic": "%s", "format": "raw", %s}}
                 ]}
                """.formatted(name, tmp.resolve("checkpoints"), broker.saslBootstrapServers(), in, security.formatted(jaas),
                broker.saslBootstrapServers(), out, security.formatted(sinkJaas));
    }

    private static String jsonString(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
