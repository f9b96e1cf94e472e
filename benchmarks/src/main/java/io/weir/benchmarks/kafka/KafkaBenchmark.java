package io.weir.benchmarks.kafka;

import io.weir.core.config.Configuration;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.kafka.testkit.KafkaTestBroker;
import io.weir.runtime.engine.LocalEngine;
import jakarta.json.spi.JsonProvider;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kafka → keyed aggregate → Kafka on the embedded engine against a single-node broker ({@link KafkaTestBroker}),
 * checkpoints every 1 s, with the sink exactly-once ({@code kafka-2pc}, transactions committed with each
 * checkpoint) and at-least-once ({@code delivery-guarantee: at-least-once}, a plain idempotent producer flushed
 * at each checkpoint). The job: {@code kafka} source (parallelism 2, 2 partitions) → hash by {@code key} (16 keys)
 * → {@code keyed-aggregate} count and max({@code ts}) (parallelism 2) → sink (parallelism 2, 2 partitions); it
 * emits one update per input record.
 *
 * <p>Each round runs both variants, alternating which goes first, and prints per variant and round one JSON line:
 * <ul>
 * <li>{@code records_per_s}: a bounded job over {@code --records} records written beforehand, records divided by
 *     the time from submission to the end of the job (its final commit included);</li>
 * <li>{@code latency_p50_ms}, {@code latency_p99_ms}: an unbounded job fed at {@code --rate} records/s for
 *     {@code --latency-s} seconds (after a 3 s warm-up that is not measured); for every update a
 *     {@code read_committed} consumer sees, its time of arrival minus the {@code ts} of the newest input record it
 *     covers (set by the producer when it sent the record). Exactly-once updates become visible at the commit
 *     after the next checkpoint, so their latency is about the checkpoint interval plus the checkpoint's duration.</li>
 * </ul>
 * Then one {@code summary} line per variant with the medians over the rounds. Not part of the test suite:
 * {@code benchmarks/kafka.sh [--rounds=3] [--records=300000] [--rate=5000] [--latency-s=15]}.
 */
public final class KafkaBenchmark {
    private static final int KEYS = 16;
    private static final Pattern TS = Pattern.compile("\"max_ts\":(\\d+)");

    private KafkaBenchmark() {
    }

    /** @param args {@code --rounds=N --records=N --rate=N --latency-s=N}, all optional */
    public static void main(String[] args) throws Exception {
        int rounds = intArg(args, "rounds", 3);
        int records = intArg(args, "records", 300_000);
        int rate = intArg(args, "rate", 5_000);
        int latencyS = intArg(args, "latency-s", 15);
        Path dir = Files.createTempDirectory("weir-kafka-bench-");
        List<String> variants = List.of("exactly-once", "at-least-once");
        Map<String, List<long[]>> results = Map.of(variants.get(0), new ArrayList<>(), variants.get(1), new ArrayList<>());
        try (KafkaTestBroker broker = KafkaTestBroker.start(dir.resolve("broker"), Map.of())) {
            broker.createTopics(2, "bench-in");
            produce(broker, "bench-in", records, 0);
            for (int round = 1; round <= rounds; round++) {
                for (int i = 0; i < 2; i++) {
                    String variant = variants.get((round + i) % 2);
                    String tag = variant + "-" + round;
                    broker.createTopics(2, "tp-" + tag, "lat-in-" + tag, "lat-" + tag);
                    long tpMs = throughput(broker, dir.resolve(tag), variant, "bench-in", "tp-" + tag);
                    long[] latency = latency(broker, dir.resolve(tag + "-lat"), variant, "lat-in-" + tag, "lat-" + tag, rate, latencyS);
                    long perS = records * 1000L / Math.max(1, tpMs);
                    results.get(variant).add(new long[] {perS, latency[0], latency[1]});
                    System.out.printf("{\"variant\": \"%s\", \"round\": %d, \"records\": %d, \"elapsed_ms\": %d, \"records_per_s\": %d,"
                                    + " \"latency_rate_per_s\": %d, \"latency_samples\": %d, \"latency_p50_ms\": %d, \"latency_p99_ms\": %d,"
                                    + " \"checkpoint_interval_ms\": 1000}%n",
                            variant, round, records, tpMs, perS, rate, latency[2], latency[0], latency[1]);
                }
            }
        }
        for (String variant : variants) {
            List<long[]> r = results.get(variant);
            System.out.printf("{\"summary\": \"%s\", \"rounds\": %d, \"records_per_s_median\": %d, \"latency_p50_ms_median\": %d,"
                            + " \"latency_p99_ms_median\": %d}%n", variant, r.size(), median(r, 0), median(r, 1), median(r, 2));
        }
    }

    /** @return ms from submission to the end of a bounded job over the whole input topic */
    private static long throughput(KafkaTestBroker broker, Path dir, String variant, String in, String out) throws Exception {
        try (LocalEngine engine = LocalEngine.fromServiceLoader(KafkaBenchmark.class.getClassLoader(), Configuration.empty())) {
            JobGraph job = parse(engine, dir, job("tp", dir, broker, in, out, variant, true));
            long start = System.nanoTime();
            JobResult r = engine.submit(job, stats -> { }).result().get(30, TimeUnit.MINUTES);
            if (r.status() != JobStatus.FINISHED) {
                throw new IllegalStateException("throughput job (" + variant + ") ended " + r.status(), r.failure());
            }
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        }
    }

    /** @return {p50 ms, p99 ms, samples} of produce-to-visible latency at a fixed input rate */
    private static long[] latency(KafkaTestBroker broker, Path dir, String variant, String in, String out, int rate, int seconds)
            throws Exception {
        try (LocalEngine engine = LocalEngine.fromServiceLoader(KafkaBenchmark.class.getClassLoader(), Configuration.empty());
                KafkaConsumer<byte[], byte[]> consumer = consumer(broker)) {
            JobHandle handle = engine.submit(parse(engine, dir, job("lat", dir, broker, in, out, variant, false)), stats -> { });
            List<TopicPartition> parts = List.of(new TopicPartition(out, 0), new TopicPartition(out, 1));
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            long warmupEnd = System.currentTimeMillis() + 3_000;
            AtomicReference<RuntimeException> producerError = new AtomicReference<>();
            Thread producer = new Thread(() -> {
                try {
                    produce(broker, in, rate * (seconds + 3), rate);
                } catch (RuntimeException e) {
                    producerError.set(e);
                }
            }, "bench-producer");
            producer.start();
            long[] samples = new long[rate * (seconds + 3) + 1];
            int n = 0;
            long deadline = System.currentTimeMillis() + (seconds + 3) * 1000L + 10_000;
            long seen = 0;
            long expected = (long) rate * (seconds + 3);
            while (seen < expected && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(5))) {
                    long now = System.currentTimeMillis();
                    seen++;
                    Matcher m = TS.matcher(new String(r.value(), StandardCharsets.UTF_8));
                    if (m.find()) {
                        long ts = Long.parseLong(m.group(1));
                        if (ts >= warmupEnd && n < samples.length) {
                            samples[n++] = now - ts;
                        }
                    }
                }
            }
            producer.join();
            if (producerError.get() != null) {
                throw new IllegalStateException("latency job (" + variant + "): its input was not fully written", producerError.get());
            }
            handle.cancel();
            handle.result().get(60, TimeUnit.SECONDS);
            long[] sorted = Arrays.copyOf(samples, n);
            Arrays.sort(sorted);
            if (n == 0) {
                throw new IllegalStateException("latency job (" + variant + ") made no update visible");
            }
            return new long[] {sorted[(int) (n * 0.50)], sorted[Math.min(n - 1, (int) (n * 0.99))], n};
        }
    }

    private static String job(String name, Path dir, KafkaTestBroker broker, String in, String out, String variant, boolean bounded) {
        return """
                {"name": "kafka-bench-%s", "config": {"execution.checkpointing.interval": "1 s", "execution.checkpointing.dir": "%s"},
                 "operators": [
                   {"id": "in", "type": "kafka", "parallelism": 2, "config": {"bootstrap-servers": "%s", "topics": ["%s"],
                     "bounded": %s, "schema": {"key": "string", "ts": "long", "payload": "string"}}},
                   {"id": "agg", "type": "keyed-aggregate", "parallelism": 2, "inputs": [{"from": "in", "partitioning": "hash", "keys": ["key"]}],
                    "config": {"key": ["key"], "aggregates": [{"fn": "count", "as": "n"}, {"fn": "max", "field": "ts", "as": "max_ts"}]}},
                   {"id": "out", "type": "kafka-2pc", "parallelism": 2, "inputs": [{"from": "agg", "partitioning": "rebalance"}],
                    "config": {"bootstrap-servers": "%s", "topic": "%s", "key-field": "key", "delivery-guarantee": "%s"}}
                 ]}
                """.formatted(name, dir.resolve("checkpoints"), broker.bootstrapServers(), in, bounded, broker.bootstrapServers(), out,
                variant);
    }

    private static JobGraph parse(LocalEngine engine, Path dir, String json) throws Exception {
        Files.createDirectories(dir);
        return new JobSpecParser(engine.services().plugins(), JsonProvider.provider()).parse(json, dir, Map.of());
    }

    /**
     * Sends {@code count} records over 16 keys, each with {@code ts} = send time; {@code rate} per s, 0 = as fast as
     * possible. Loads safely, as {@link KafkaTestBroker#produce} does: acks=all, idempotent, one request in flight (with
     * several, a request refused while the broker takes up leadership can be overtaken and then dropped, KAFKA-14359),
     * and every send's result checked, so a measured run never counts input the topic lacks.
     *
     * @throws IllegalStateException if a record was not written, naming the topic, how many failed and the first error
     */
    private static void produce(KafkaTestBroker broker, String topic, int count, int rate) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        p.put(ProducerConfig.LINGER_MS_CONFIG, rate == 0 ? 20 : 0);
        String payload = "x".repeat(64);
        long start = System.nanoTime();
        AtomicInteger failed = new AtomicInteger();
        AtomicReference<Exception> firstError = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < count; i++) {
                if (rate > 0) {
                    long due = start + (long) i * 1_000_000_000L / rate;
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        java.util.concurrent.locks.LockSupport.parkNanos(wait);
                    }
                }
                String key = "k" + (i % KEYS);
                String value = "{\"key\": \"" + key + "\", \"ts\": " + System.currentTimeMillis() + ", \"payload\": \"" + payload + "\"}";
                producer.send(new ProducerRecord<>(topic, i % 2, null, value.getBytes(StandardCharsets.UTF_8)), (metadata, e) -> {
                    if (e != null) {
                        failed.incrementAndGet();
                        firstError.compareAndSet(null, e);
                    }
                });
            }
            producer.flush(); // every callback has run once flush returns
        }
        if (failed.get() > 0) {
            throw new IllegalStateException(failed.get() + " of " + count + " records were not written to topic " + topic
                    + ": " + firstError.get(), firstError.get());
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(KafkaTestBroker broker) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static long median(List<long[]> rows, int column) {
        long[] v = rows.stream().mapToLong(r -> r[column]).sorted().toArray();
        return v.length == 0 ? -1 : v[v.length / 2];
    }

    private static int intArg(String[] args, String name, int fallback) {
        for (String a : args) {
            if (a.startsWith("--" + name + "=")) {
                return Integer.parseInt(a.substring(name.length() + 3));
            }
        }
        return fallback;
    }
}
