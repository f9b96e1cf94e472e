import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The Kafka steps of examples/kafka-flights.sh, run with the JDK's source launcher and kafka-clients on the class path
 * (java -cp KAFKA_CLASSPATH examples/KafkaFlightsTool.java COMMAND BOOTSTRAP ...):
 * <ul>
 * <li>{@code wait BOOTSTRAP}: waits up to 60 s until the broker answers;</li>
 * <li>{@code create BOOTSTRAP PARTITIONS TOPIC...}: creates the topics;</li>
 * <li>{@code load BOOTSTRAP TOPIC FILE}: writes each flat JSON object of the file (a JSON array, one object per
 *     line, or JSON lines) as one record, keyed by nothing, and fails if any record was not written;</li>
 * <li>{@code committed BOOTSTRAP TOPIC}: prints how many records a read_committed consumer sees and the last value
 *     per record key.</li>
 * </ul>
 * Exits 1 with a one-line message on failure.
 */
public final class KafkaFlightsTool {
    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: KafkaFlightsTool wait|create|load|committed BOOTSTRAP ...");
            System.exit(2);
        }
        try {
            switch (args[0]) {
                case "wait" -> waitForBroker(args[1]);
                case "create" -> create(args[1], Integer.parseInt(args[2]), List.of(args).subList(3, args.length));
                case "load" -> load(args[1], args[2], Path.of(args[3]));
                case "committed" -> committed(args[1], args[2]);
                default -> throw new IllegalArgumentException("unknown command " + args[0]);
            }
        } catch (Exception e) {
            System.err.println("KafkaFlightsTool " + args[0] + " failed: " + e);
            System.exit(1);
        }
    }

    private static void waitForBroker(String bootstrap) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try (Admin admin = admin(bootstrap)) {
                admin.describeCluster().nodes().get(5, TimeUnit.SECONDS);
                return;
            } catch (Exception e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no Kafka broker answered at " + bootstrap + " within 60 s", e);
                }
                Thread.sleep(500);
            }
        }
    }

    private static void create(String bootstrap, int partitions, List<String> topics) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            admin.createTopics(topics.stream().map(t -> new NewTopic(t, partitions, (short) 1)).toList()).all().get(30, TimeUnit.SECONDS);
        }
    }

    private static void load(String bootstrap, String topic, Path file) throws Exception {
        String text = Files.readString(file).strip();
        if (text.startsWith("[")) {
            text = text.substring(1, text.length() - 1);
        }
        List<String> records = new ArrayList<>();
        // flat objects: split between "}" and "{" (with a comma in a JSON array) and at line breaks
        for (String part : text.split("(?<=\\})\\s*,?\\s*(?=\\{)|\\R")) {
            String r = part.strip();
            if (r.endsWith(",")) {
                r = r.substring(0, r.length() - 1);
            }
            if (!r.isEmpty()) {
                records.add(r);
            }
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        // one request in flight: a first request refused while the broker takes up a new partition's leadership
        // could otherwise be overtaken by the next and then be dropped after delivery.timeout.ms (KAFKA-15591)
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        List<Future<RecordMetadata>> sent = new ArrayList<>(records.size());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (String r : records) {
                sent.add(producer.send(new ProducerRecord<>(topic, r)));
            }
            producer.flush();
        }
        int failed = 0;
        Throwable first = null;
        for (Future<RecordMetadata> f : sent) {
            try {
                f.get();
            } catch (ExecutionException e) {
                failed++;
                first = first == null ? e.getCause() : first;
            }
        }
        if (failed > 0) {
            throw new IllegalStateException(failed + " of " + records.size() + " flights were not written to topic " + topic
                    + ": " + first);
        }
        System.out.println("loaded " + records.size() + " flights into topic " + topic);
    }

    private static void committed(String bootstrap, String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Map<String, String> lastByKey = new TreeMap<>();
        long count = 0;
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> parts = c.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp)) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    count++;
                    lastByKey.put(String.valueOf(r.key()), r.value());
                }
            }
        }
        System.out.println(count + " committed updates in topic " + topic + " (read_committed); the last per key:");
        lastByKey.values().forEach(v -> System.out.println("  " + v));
    }

    private static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10000);
        return Admin.create(p);
    }
}
