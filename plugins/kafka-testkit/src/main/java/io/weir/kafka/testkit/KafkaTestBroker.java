package io.weir.kafka.testkit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A single-node KRaft Kafka broker (controller and broker in one) in a child JVM on free loopback
 * ports, for tests (shared RECIPES.md §3a). {@link #start} formats a private data directory and
 * waits until the broker answers an {@link Admin} call (about 5 s); {@link #stop} sends SIGTERM and,
 * after 10 s, kills it; {@link #restart} stops and starts it on the same ports and data, so
 * committed data and open transactions survive as they would a real broker restart. A JVM shutdown
 * hook stops the child when the test JVM exits without calling {@link #close} (a crashed or killed
 * test run must not leave a broker behind), and the child is started with the test JVM's pid so
 * that it can be identified.
 *
 * <p>{@link #startWithSaslPlain} adds a second client listener, {@code SASL_PLAINTEXT} with the {@code PLAIN}
 * mechanism and the given users in the broker's JAAS config ({@link #saslBootstrapServers()}), for tests of
 * client security settings. The PLAINTEXT listener (used by this class's own helpers, and between the broker and
 * itself) and the KRaft controller listener stay PLAINTEXT.
 *
 * <p>Not thread-safe: one test thread starts, restarts and stops it.
 */
public final class KafkaTestBroker implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Path dir;
    private final Map<String, String> extraConfig;
    private final int port;
    private final int controllerPort;
    /** User → password of the SASL_PLAINTEXT listener; empty without one. */
    private final Map<String, String> saslUsers;
    /** Port of the SASL_PLAINTEXT listener, or -1 without one. */
    private final int saslPort;
    private Process process;
    private Thread shutdownHook;

    private KafkaTestBroker(Path dir, Map<String, String> extraConfig, Map<String, String> saslUsers) throws IOException {
        this.dir = dir;
        this.extraConfig = Map.copyOf(extraConfig);
        this.port = freePort();
        this.controllerPort = freePort();
        this.saslUsers = Map.copyOf(saslUsers);
        this.saslPort = saslUsers.isEmpty() ? -1 : freePort();
    }

    /**
     * Formats a data directory under {@code dir} and starts a broker.
     *
     * @param dir an empty directory for configuration, data and the broker's log ({@code broker.log})
     * @param extraConfig broker properties added to (or overriding) the defaults, e.g.
     *        {@code transaction.max.timeout.ms}
     * @return the running broker, answering on {@link #bootstrapServers()}
     * @throws IOException if the JVM cannot be launched or the broker does not answer within 60 s
     *         (the message quotes the end of its log)
     */
    public static KafkaTestBroker start(Path dir, Map<String, String> extraConfig) throws IOException {
        return start(new KafkaTestBroker(dir, extraConfig, Map.of()));
    }

    /**
     * As {@link #start}, with a second client listener, {@code SASL_PLAINTEXT} with mechanism {@code PLAIN}, on
     * {@link #saslBootstrapServers()}; clients authenticate with {@link #plainJaasConfig}. Authentication only: no
     * authorizer, so an authenticated user may do anything.
     *
     * @param users user name → password, at least one; names and passwords without {@code "} or {@code \}
     * @throws IllegalArgumentException if {@code users} is empty or a name or password contains {@code "} or {@code \}
     * @throws IOException as {@link #start}
     */
    public static KafkaTestBroker startWithSaslPlain(Path dir, Map<String, String> extraConfig, Map<String, String> users)
            throws IOException {
        if (users.isEmpty()) {
            throw new IllegalArgumentException("a SASL/PLAIN listener needs at least one user");
        }
        users.forEach((u, pw) -> {
            if ((u + pw).contains("\"") || (u + pw).contains("\\")) {
                throw new IllegalArgumentException("SASL user " + u + ": names and passwords must not contain \" or \\");
            }
        });
        return start(new KafkaTestBroker(dir, extraConfig, users));
    }

    /**
     * @param user the user name
     * @param password the password
     * @return a client's {@code sasl.jaas.config} for SASL/PLAIN as this user
     */
    public static String plainJaasConfig(String user, String password) {
        return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user + "\" password=\""
                + password + "\";";
    }

    private static KafkaTestBroker start(KafkaTestBroker broker) throws IOException {
        try {
            broker.format();
            broker.launch();
        } catch (IOException | RuntimeException e) {
            broker.close();
            throw e;
        }
        return broker;
    }

    /** @return {@code 127.0.0.1:<port>} of the PLAINTEXT listener */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /**
     * @return {@code 127.0.0.1:<port>} of the SASL_PLAINTEXT listener
     * @throws IllegalStateException if the broker was not started with {@link #startWithSaslPlain}
     */
    public String saslBootstrapServers() {
        if (saslPort < 0) {
            throw new IllegalStateException("this broker has no SASL listener: start it with startWithSaslPlain");
        }
        return "127.0.0.1:" + saslPort;
    }

    /** @return whether the broker process is alive */
    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    /**
     * Stops the broker (SIGTERM, then after 10 s SIGKILL) and starts it again on the same ports and
     * data directory, waiting until it answers.
     *
     * @throws IOException as {@link #start}
     */
    public void restart() throws IOException {
        stop();
        launch();
    }

    /** Stops the broker: SIGTERM, and SIGKILL if it has not exited 10 s later. Idempotent. */
    public void stop() {
        Process p = process;
        process = null;
        if (p == null) {
            return;
        }
        p.destroy();
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the broker and removes the shutdown hook; the data directory is left for the test's temp dir. */
    @Override
    public void close() {
        stop();
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or has run
            }
            shutdownHook = null;
        }
    }

    /**
     * Creates topics and waits until the broker leads every partition of them, so that a write right
     * after this call is not refused with {@code NOT_LEADER_OR_FOLLOWER} (see {@link #produce}).
     *
     * @param partitions partitions of each topic, at least 1
     * @param names topic names
     * @throws IllegalStateException if creation fails, or the broker does not lead every partition within 30 s
     */
    public void createTopics(int partitions, String... names) {
        try (Admin admin = admin()) {
            List<NewTopic> topics = new ArrayList<>();
            Map<TopicPartition, OffsetSpec> all = new HashMap<>();
            for (String n : names) {
                topics.add(new NewTopic(n, partitions, (short) 1));
                for (int p = 0; p < partitions; p++) {
                    all.put(new TopicPartition(n, p), OffsetSpec.latest());
                }
            }
            admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
            awaitLeaders(admin, all);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics " + List.of(names), e);
        } catch (Exception e) {
            throw new IllegalStateException("cannot create topics " + List.of(names) + ": " + e, e);
        }
    }

    /**
     * Waits until the broker answers ListOffsets, which only a partition's leader does, for every one of
     * {@code partitions}: under load the broker's metadata and leadership can lag a topic creation the
     * controller has completed, and a write meanwhile is refused ({@code NOT_LEADER_OR_FOLLOWER}). Retriable
     * errors (unknown topic or partition, no leader yet) are retried every 100 ms for up to 30 s.
     */
    private static void awaitLeaders(Admin admin, Map<TopicPartition, OffsetSpec> partitions) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                admin.listOffsets(partitions).all().get(30, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof RetriableException) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    /** @return a new admin client for this broker; the caller closes it */
    public Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return Admin.create(p);
    }

    /**
     * Writes records (non-transactionally, idempotent, acks=all, one request in flight) and waits until
     * every one is written. With several requests in flight, a first request refused while the broker
     * is still taking up leadership of a new partition can be overtaken by the next one; the broker
     * then refuses every retry of the first as {@code OUT_OF_ORDER_SEQUENCE_NUMBER} until the producer
     * drops it at {@code delivery.timeout.ms} (KAFKA-14359, KAFKA-15591): a whole batch (429 flights of
     * KafkaJobTest) was lost that way while the test counted it as input.
     *
     * @param topic the topic
     * @param partition the partition, or -1 to let the key decide
     * @param values the values, UTF-8; keys are null
     * @throws IllegalStateException if a record was not written, naming the topic, the partition, how
     *         many records failed and the first error: a test must never count input the topic lacks
     */
    public void produce(String topic, int partition, List<String> values) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        List<Future<RecordMetadata>> sent = new ArrayList<>(values.size());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (String v : values) {
                sent.add(producer.send(new ProducerRecord<>(topic, partition < 0 ? null : partition, null, v.getBytes(StandardCharsets.UTF_8))));
            }
            producer.flush();
        }
        int failed = 0;
        Throwable first = null;
        for (Future<RecordMetadata> f : sent) {
            try {
                f.get(); // complete: flushed and closed
            } catch (ExecutionException e) {
                failed++;
                first = first == null ? e.getCause() : first;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while writing to topic " + topic, e);
            }
        }
        if (failed > 0) {
            throw new IllegalStateException(failed + " of " + values.size() + " records were not written to topic " + topic
                    + (partition < 0 ? "" : " partition " + partition) + ": " + first, first);
        }
    }

    /**
     * Reads every record visible under the isolation level from the start of each partition up to
     * the partition's end offset at the time of the call. With {@code read_committed} the end is the last stable
     * offset, which a transaction committed just before the call may not have moved yet: a producer's
     * {@code commitTransaction()} returns once the coordinator has logged the commit, and the commit markers reach
     * the partitions a moment later. So the end is taken once every partition's last stable offset has reached its
     * high watermark, or after {@value #STABLE_END_WAIT_MS} ms (a transaction still open stays unread).
     *
     * @param topic the topic
     * @param readCommitted {@code read_committed} when true (only committed transactional records)
     * @return values as UTF-8 strings, partition by partition in offset order
     * @throws IllegalStateException if the records up to the end cannot be read within 60 s
     */
    public List<String> readAll(String topic, boolean readCommitted) {
        List<String> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = consumer(readCommitted)) {
            List<TopicPartition> parts = c.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(i -> new TopicPartition(topic, i.partition()))
                    .sorted(Comparator.comparingInt(TopicPartition::partition)).toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> first = c.endOffsets(parts, Duration.ofSeconds(30));
            Map<TopicPartition, Long> end = readCommitted ? stableEndOffsets(c, parts, first) : first;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            List<List<String>> perPartition = new ArrayList<>();
            parts.forEach(x -> perPartition.add(new ArrayList<>()));
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("reading " + topic + " did not reach end offsets " + end + " in 60 s");
                }
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    perPartition.get(r.partition()).add(new String(r.value(), StandardCharsets.UTF_8));
                }
            }
            perPartition.forEach(out::addAll);
        }
        return out;
    }

    /** @return a new consumer of this broker, no group, no auto-commit, {@code read_committed} or {@code read_uncommitted} */
    private KafkaConsumer<byte[], byte[]> consumer(boolean readCommitted) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, readCommitted ? "read_committed" : "read_uncommitted");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Longest wait of {@link #readAll} for the last stable offsets to reach the high watermarks, ms. */
    static final long STABLE_END_WAIT_MS = 5_000;

    /**
     * @param committed a {@code read_committed} consumer assigned {@code parts}
     * @param end its end offsets (last stable offsets) as first asked
     * @return the last stable offsets once each has reached its partition's high watermark, or as they are after
     *         {@link #STABLE_END_WAIT_MS}
     */
    private Map<TopicPartition, Long> stableEndOffsets(KafkaConsumer<byte[], byte[]> committed, List<TopicPartition> parts,
            Map<TopicPartition, Long> end) {
        Map<TopicPartition, Long> highWatermarks;
        try (KafkaConsumer<byte[], byte[]> c = consumer(false)) {
            highWatermarks = c.endOffsets(parts, Duration.ofSeconds(30));
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STABLE_END_WAIT_MS);
        Map<TopicPartition, Long> stable = end;
        while (!reached(stable, highWatermarks) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the last stable offsets of " + parts, e);
            }
            stable = committed.endOffsets(parts, Duration.ofSeconds(30));
        }
        return stable;
    }

    /** @return whether every partition's offset in {@code offsets} is at least its offset in {@code targets} */
    private static boolean reached(Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> targets) {
        for (Map.Entry<TopicPartition, Long> t : targets.entrySet()) {
            if (offsets.get(t.getKey()) < t.getValue()) {
                return false;
            }
        }
        return true;
    }

    private void format() throws IOException {
        Files.createDirectories(dir.resolve("kdata"));
        StringBuilder props = new StringBuilder();
        Properties defaults = new Properties();
        defaults.put("process.roles", "broker,controller");
        defaults.put("node.id", "1");
        defaults.put("controller.quorum.bootstrap.servers", "127.0.0.1:" + controllerPort);
        defaults.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        defaults.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        defaults.put("controller.listener.names", "CONTROLLER");
        defaults.put("inter.broker.listener.name", "PLAINTEXT");
        defaults.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        defaults.put("log.dirs", dir.resolve("kdata").toAbsolutePath().toString());
        defaults.put("num.partitions", "1");
        defaults.put("offsets.topic.replication.factor", "1");
        defaults.put("offsets.topic.num.partitions", "1");
        defaults.put("transaction.state.log.replication.factor", "1");
        defaults.put("transaction.state.log.min.isr", "1");
        defaults.put("transaction.state.log.num.partitions", "1");
        defaults.put("group.initial.rebalance.delay.ms", "0");
        defaults.put("share.coordinator.state.topic.replication.factor", "1");
        defaults.put("share.coordinator.state.topic.min.isr", "1");
        if (saslPort >= 0) {
            defaults.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",SASL_PLAINTEXT://127.0.0.1:" + saslPort
                    + ",CONTROLLER://127.0.0.1:" + controllerPort);
            defaults.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port + ",SASL_PLAINTEXT://127.0.0.1:" + saslPort);
            defaults.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT");
            defaults.put("sasl.enabled.mechanisms", "PLAIN");
            defaults.put("listener.name.sasl_plaintext.sasl.enabled.mechanisms", "PLAIN");
            StringBuilder jaas = new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required");
            saslUsers.forEach((u, pw) -> jaas.append(" user_").append(u).append("=\"").append(pw).append('"'));
            defaults.put("listener.name.sasl_plaintext.plain.sasl.jaas.config", jaas.append(';').toString());
        }
        defaults.putAll(extraConfig);
        defaults.stringPropertyNames().stream().sorted()
                .forEach(k -> props.append(k).append('=').append(defaults.getProperty(k)).append('\n'));
        Files.writeString(config(), props);
        run(List.of("kafka.tools.StorageTool", "format", "-t", randomClusterId(), "-c", config().toString(), "--standalone"));
    }

    private void launch() throws IOException {
        List<String> cmd = new ArrayList<>(javaCommand());
        cmd.addAll(1, List.of("-Xms128m", "-Xmx512m", "-Dweir.test.parent.pid=" + ProcessHandle.current().pid()));
        cmd.add("kafka.Kafka");
        cmd.add(config().toString());
        process = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("broker.log").toFile())).start();
        if (shutdownHook == null) {
            shutdownHook = new Thread(this::stop, "kafka-test-broker-stop");
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
        awaitReady();
    }

    private void awaitReady() throws IOException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("Kafka test broker exited with " + process.exitValue() + ": " + logTail());
            }
            if (portOpen()) {
                try (Admin admin = admin()) {
                    admin.describeCluster().nodes().get(10, TimeUnit.SECONDS);
                    return;
                } catch (Exception notYet) {
                    // the listener is up before the broker serves metadata
                }
            }
            sleepBriefly();
        }
        stop();
        throw new IOException("Kafka test broker did not answer on " + bootstrapServers() + " within " + START_TIMEOUT + ": " + logTail());
    }

    private boolean portOpen() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void sleepBriefly() throws IOException {
        try {
            Thread.sleep(100); // polling a child process's readiness; no event to wait on
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the Kafka test broker", e);
        }
    }

    private String randomClusterId() throws IOException {
        return run(List.of("kafka.tools.StorageTool", "random-uuid")).strip();
    }

    private String run(List<String> mainAndArgs) throws IOException {
        List<String> cmd = new ArrayList<>(javaCommand());
        cmd.addAll(mainAndArgs);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out;
        try (InputStream in = p.getInputStream()) {
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException("Kafka tool " + mainAndArgs + " failed: " + out);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted running " + mainAndArgs, e);
        }
        return out;
    }

    private static List<String> javaCommand() throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ArrayList<>(List.of(java, "-cp", brokerClassPath(), "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
    }

    /** @return the broker's class path, written by the build into {@code broker-classpath.txt} */
    static String brokerClassPath() throws IOException {
        try (InputStream in = KafkaTestBroker.class.getResourceAsStream("broker-classpath.txt")) {
            if (in == null) {
                throw new IOException("broker-classpath.txt is missing from weir-kafka-testkit: build it with Maven");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        }
    }

    private Path config() {
        return dir.resolve("server.properties");
    }

    private String logTail() {
        try {
            String log = Files.readString(dir.resolve("broker.log"));
            return log.substring(Math.max(0, log.length() - 2000));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Deletes a directory tree, for callers that do not use a JUnit temp dir. */
    public static void deleteTree(Path root) {
        Objects.requireNonNull(root);
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
