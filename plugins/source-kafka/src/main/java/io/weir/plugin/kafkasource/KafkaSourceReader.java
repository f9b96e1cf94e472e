package io.weir.plugin.kafkasource;

import io.weir.api.Row;
import io.weir.api.SuppressRestartsException;
import io.weir.api.operator.OperatorContext;
import io.weir.api.operator.Output;
import io.weir.api.source.PollStatus;
import io.weir.api.source.SourceReader;
import io.weir.api.state.ListState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Reads one subtask's partitions of the {@code kafka} source. Partition {@code p} of topic {@code t} belongs to
 * subtask {@code (startIndex(t) + p) % parallelism}, {@code startIndex(t) = (31 * t.hashCode() & 0x7fffffff) %
 * parallelism} (as Flink's Kafka source assigns them): a pure function of the partition, so subtasks that list the
 * topics at slightly different moments still agree on who reads what. On a fresh start each subtask takes its
 * partitions of the topics (or of the topics matching the pattern); their start offsets follow {@code start-from},
 * and in bounded mode their stop offsets are the end offsets at that moment. The per-partition positions are the
 * subtask's operator list state, so a restore continues exactly after the last record covered by the checkpoint.
 *
 * <p>Restores may change the parallelism ({@link KafkaSourceFactory#supportsRescale}): the runtime deals
 * the partition positions of all old subtasks round-robin over the new ones, and each subtask reads
 * exactly the partitions it was dealt. Every subtask also records the partitions it reads in union state,
 * so a restored subtask knows every partition the checkpoint covers.
 *
 * <p>Partitions the checkpoint does not cover (added to a topic, or topics newly matching the pattern) are
 * read from their earliest offset by the subtask they belong to (unbounded mode only: a bounded job reads what
 * existed at its first start): at a restore, and while the job runs every {@code partition-discovery-interval-ms}
 * (a partition found after a checkpoint and read is, after a restore from that checkpoint, read again from the
 * earliest offset, while the output of that first reading was rolled back with the checkpoint).
 *
 * <p>The consumer reads {@code read_committed}: records of aborted or still open transactions
 * (e.g. of a {@code kafka-2pc} sink) are never emitted. Offsets are not committed to Kafka; exactly
 * once comes from the checkpointed positions alone.
 *
 * <p>A value that does not fit the schema fails the job with a {@link SuppressRestartsException}
 * naming topic, partition and offset: restarting would read the same record again.
 *
 * <p>Task thread only.
 */
public final class KafkaSourceReader implements SourceReader {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaSourceReader.class);
    /** Operator list state: one {@link PartitionOffset} per partition of this subtask. */
    static final String STATE = "kafka-partition-offsets";
    /** Union list state: the partitions ({@code topic-partition}) each subtask reads, so a restore knows them all. */
    static final String KNOWN_STATE = "kafka-known-partitions";
    private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(30);
    /** Bounds each broker call of a discovery while the job runs; a discovery that times out is retried at the next interval. */
    private static final int DISCOVERY_TIMEOUT_S = 5;
    private static final Duration DISCOVERY_TIMEOUT = Duration.ofSeconds(DISCOVERY_TIMEOUT_S);

    private final KafkaSourceSettings settings;
    private final FlatJsonDecoder decoder;

    // Task thread only.
    private OperatorContext context;
    private ListState<PartitionOffset> state;
    private ListState<String> knownState;
    private KafkaConsumer<byte[], byte[]> consumer;
    /** This subtask's partitions and positions, in assignment order. */
    private final Map<TopicPartition, PartitionOffset> positions = new LinkedHashMap<>();
    /** The partitions ({@code topic-partition}) the restored checkpoint covers: read by some subtask, never added here. */
    private final java.util.Set<String> restoredKnown = new java.util.HashSet<>();
    /** {@link System#nanoTime()} of the next discovery of added partitions (unbounded, interval > 0). */
    private long nextDiscoveryNanos;

    /** @param settings the validated config */
    public KafkaSourceReader(KafkaSourceSettings settings) {
        this.settings = settings;
        this.decoder = new FlatJsonDecoder(settings.schema());
    }

    /**
     * Restores the positions, or on a fresh start discovers and deals the partitions and resolves
     * their start (and, bounded, stop) offsets at the broker.
     *
     * @throws IllegalStateException if a topic does not exist or has no partitions, naming it
     * @throws org.apache.kafka.common.errors.TimeoutException if the broker does not answer within 30 s
     */
    @Override
    public void initializeState(OperatorContext context) {
        this.context = context;
        state = context.operatorState().getListState(STATE, PartitionOffset.SERIALIZER);
        knownState = context.operatorState().getUnionListState(KNOWN_STATE, io.weir.api.serialization.Serializers.STRING);
        consumer = PluginClassLoader.call(this::newConsumer);
        if (context.isRestored()) {
            for (PartitionOffset p : state.get()) {
                positions.put(p.topicPartition(), p);
            }
            LOG.info("{} restored {} partition position(s): {}", describe(), positions.size(), positions.values());
            knownState.get().forEach(restoredKnown::add);
            if (!settings.bounded() && !restoredKnown.isEmpty()) {
                List<TopicPartition> mine = added(allPartitions(METADATA_TIMEOUT, true));
                Map<TopicPartition, Long> earliest = consumer.beginningOffsets(mine, METADATA_TIMEOUT);
                for (TopicPartition tp : mine) {
                    positions.put(tp, new PartitionOffset(tp.topic(), tp.partition(), earliest.get(tp), -1));
                }
                if (!mine.isEmpty()) {
                    LOG.info("{} reads {} partition(s) the checkpoint does not cover from the earliest offset: {}", describe(),
                            mine.size(), mine);
                }
            }
        } else {
            List<TopicPartition> mine = allPartitions(METADATA_TIMEOUT, true).stream().filter(this::isMine).toList();
            Map<TopicPartition, Long> start = startOffsets(mine);
            Map<TopicPartition, Long> stop = settings.bounded() ? consumer.endOffsets(mine, METADATA_TIMEOUT) : Map.of();
            for (TopicPartition tp : mine) {
                positions.put(tp, new PartitionOffset(tp.topic(), tp.partition(), start.get(tp),
                        settings.bounded() ? stop.get(tp) : -1));
            }
            LOG.info("{} starts {} partition(s) from {}: {}", describe(), positions.size(), settings.startFrom(), positions.values());
        }
        consumer.assign(List.copyOf(positions.keySet()));
        for (PartitionOffset p : positions.values()) {
            consumer.seek(p.topicPartition(), p.nextOffset());
        }
        pauseDone();
        nextDiscoveryNanos = System.nanoTime() + settings.discoveryIntervalMs() * 1_000_000L;
    }

    /** @return the partitions of {@code all} that belong to this subtask and that neither it nor the restored checkpoint reads */
    private List<TopicPartition> added(List<TopicPartition> all) {
        return all.stream().filter(tp -> isMine(tp) && !positions.containsKey(tp) && !restoredKnown.contains(tp.toString())).toList();
    }

    /** @return whether {@code tp} belongs to this subtask (class Javadoc: the owner is a function of topic and partition) */
    private boolean isMine(TopicPartition tp) {
        return owner(tp, context.parallelism()) == context.subtaskIndex();
    }

    /**
     * @param tp a partition
     * @param parallelism the source's parallelism, at least 1
     * @return the subtask index, in {@code [0, parallelism)}, that reads {@code tp} unless a restore dealt it elsewhere
     */
    static int owner(TopicPartition tp, int parallelism) {
        int startIndex = ((tp.topic().hashCode() * 31) & 0x7fffffff) % parallelism;
        return (startIndex + tp.partition()) % parallelism;
    }

    /**
     * Looks for partitions added while the job runs and reads the ones that belong to this subtask from their earliest
     * offset. A broker that does not answer within {@value #DISCOVERY_TIMEOUT_S} s is logged and asked again at the
     * next interval: the partitions already read go on meanwhile.
     */
    private void discover() {
        try {
            List<TopicPartition> mine = added(allPartitions(DISCOVERY_TIMEOUT, false));
            if (mine.isEmpty()) {
                return;
            }
            Map<TopicPartition, Long> earliest = consumer.beginningOffsets(mine, DISCOVERY_TIMEOUT);
            for (TopicPartition tp : mine) {
                positions.put(tp, new PartitionOffset(tp.topic(), tp.partition(), earliest.get(tp), -1));
            }
            consumer.assign(List.copyOf(positions.keySet())); // keeps the positions of the partitions already assigned
            for (TopicPartition tp : mine) {
                consumer.seek(tp, earliest.get(tp));
            }
            LOG.info("{} found {} partition(s) added while the job runs and reads them from the earliest offset: {}", describe(),
                    mine.size(), mine);
        } catch (org.apache.kafka.common.KafkaException e) {
            LOG.warn("{} could not look for added partitions at {} ({}); trying again in {} ms", describe(),
                    settings.bootstrapServers(), e.toString(), settings.discoveryIntervalMs());
        } finally {
            nextDiscoveryNanos = System.nanoTime() + settings.discoveryIntervalMs() * 1_000_000L;
        }
    }

    /**
     * Lists the topics at the broker (always asked: {@code partitionsFor} would answer from the consumer's cached
     * metadata, up to {@code metadata.max.age.ms} old, and miss partitions just added).
     *
     * @return every partition of the topics (or of the topics matching the pattern), sorted by topic and partition
     * @throws IllegalStateException if {@code failIfMissing} and a listed topic does not exist or has no partitions
     */
    private List<TopicPartition> allPartitions(Duration timeout, boolean failIfMissing) {
        Map<String, List<PartitionInfo>> topics = consumer.listTopics(timeout);
        List<TopicPartition> all = new ArrayList<>();
        if (settings.topicPattern() != null) {
            for (Map.Entry<String, List<PartitionInfo>> e : topics.entrySet()) {
                if (settings.topicPattern().matcher(e.getKey()).matches()) {
                    e.getValue().forEach(pi -> all.add(new TopicPartition(pi.topic(), pi.partition())));
                }
            }
        } else {
            for (String topic : settings.topics()) {
                List<PartitionInfo> infos = topics.get(topic);
                if (infos == null || infos.isEmpty()) {
                    if (!failIfMissing) {
                        continue; // deleted while the job runs: the fetches of its partitions report it
                    }
                    throw new IllegalStateException(describe() + ": topic '" + topic + "' does not exist at "
                            + settings.bootstrapServers() + " (or has no partitions)");
                }
                infos.forEach(pi -> all.add(new TopicPartition(pi.topic(), pi.partition())));
            }
        }
        all.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        return all;
    }

    private Map<TopicPartition, Long> startOffsets(List<TopicPartition> parts) {
        Map<TopicPartition, Long> earliest = consumer.beginningOffsets(parts, METADATA_TIMEOUT);
        Map<TopicPartition, Long> start = new LinkedHashMap<>(earliest);
        switch (settings.startFrom()) {
            case EARLIEST -> { }
            case LATEST -> start.putAll(consumer.endOffsets(parts, METADATA_TIMEOUT));
            case TIMESTAMP -> {
                Map<TopicPartition, Long> query = new LinkedHashMap<>();
                parts.forEach(tp -> query.put(tp, settings.startTimestampMs()));
                Map<TopicPartition, Long> end = consumer.endOffsets(parts, METADATA_TIMEOUT);
                for (Map.Entry<TopicPartition, OffsetAndTimestamp> e : consumer.offsetsForTimes(query, METADATA_TIMEOUT).entrySet()) {
                    start.put(e.getKey(), e.getValue() == null ? end.get(e.getKey()) : e.getValue().offset());
                }
            }
            case GROUP_OFFSETS -> {
                for (Map.Entry<TopicPartition, OffsetAndMetadata> e
                        : consumer.committed(java.util.Set.copyOf(parts), METADATA_TIMEOUT).entrySet()) {
                    if (e.getValue() != null) {
                        start.put(e.getKey(), e.getValue().offset());
                    }
                }
            }
        }
        return start;
    }

    /**
     * Emits the records the consumer has fetched (at most {@code max.poll.records}, 500) without waiting.
     *
     * @throws SuppressRestartsException if a value does not fit the schema, naming topic, partition and offset
     */
    @Override
    public PollStatus pollNext(Output out) {
        if (allDone()) {
            return PollStatus.END_OF_INPUT;
        }
        if (!settings.bounded() && settings.discoveryIntervalMs() > 0 && System.nanoTime() - nextDiscoveryNanos >= 0) {
            discover();
        }
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ZERO);
        for (ConsumerRecord<byte[], byte[]> r : records) {
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            PartitionOffset p = positions.get(tp);
            if (p.done()) {
                continue; // fetched past the stop offset of a bounded partition
            }
            out.collect(toRow(r));
            positions.put(tp, new PartitionOffset(p.topic(), p.partition(), r.offset() + 1, p.stopOffset()));
        }
        if (settings.bounded()) {
            // under read_committed the position also moves over transaction markers and aborted records
            for (Map.Entry<TopicPartition, PartitionOffset> e : positions.entrySet()) {
                PartitionOffset p = e.getValue();
                if (!p.done() && records.records(e.getKey()).isEmpty()) {
                    long position = consumer.position(e.getKey(), METADATA_TIMEOUT);
                    if (position > p.nextOffset()) {
                        e.setValue(new PartitionOffset(p.topic(), p.partition(), position, p.stopOffset()));
                    }
                }
            }
            pauseDone();
            if (allDone()) {
                return PollStatus.END_OF_INPUT;
            }
        }
        return records.isEmpty() ? PollStatus.NOTHING_AVAILABLE : PollStatus.MORE_AVAILABLE;
    }

    private Row toRow(ConsumerRecord<byte[], byte[]> r) {
        try {
            if (settings.format().equals("raw")) {
                byte[] v = r.value();
                Object value = v == null ? null : settings.schema().field(0).type() == io.weir.api.FieldType.BYTES ? v
                        : new String(v, StandardCharsets.UTF_8);
                return new Row(settings.schema(), value);
            }
            return decoder.decode(r.value());
        } catch (IllegalArgumentException e) {
            String message = describe() + ": the record at topic " + r.topic() + ", partition " + r.partition() + ", offset "
                    + r.offset() + " does not fit the schema " + settings.schema() + ": " + e.getMessage()
                    + ". Restarting would read it again: fix the producer or the schema; to skip the record, start the job"
                    + " afresh with start-from timestamp or group-offsets past it.";
            LOG.error(message);
            throw new SuppressRestartsException(message, e);
        }
    }

    private boolean allDone() {
        return settings.bounded() && positions.values().stream().allMatch(PartitionOffset::done);
    }

    private void pauseDone() {
        List<TopicPartition> done = positions.values().stream().filter(PartitionOffset::done)
                .map(PartitionOffset::topicPartition).toList();
        if (!done.isEmpty()) {
            consumer.pause(done);
        }
    }

    /** Stores every partition's position in operator state. */
    @Override
    public void snapshotState(long checkpointId) {
        state.update(List.copyOf(positions.values()));
        knownState.update(positions.keySet().stream().map(TopicPartition::toString).toList());
        LOG.debug("{} checkpoint {}: positions {}", describe(), checkpointId, positions.values());
    }

    /** Waits up to 1 ms between empty polls (the consumer fetches in the background meanwhile). */
    @Override
    public long idleWaitNanos() {
        return 1_000_000L;
    }

    @Override
    public void close() {
        if (consumer != null) {
            consumer.close(Duration.ZERO);
            consumer = null;
        }
    }

    private KafkaConsumer<byte[], byte[]> newConsumer() {
        Properties p = settings.clientProperties().applyTo(new Properties());
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "weir-" + context.jobName() + "-" + context.operatorId() + "-" + context.subtaskIndex());
        if (settings.groupId() != null) {
            p.put(ConsumerConfig.GROUP_ID_CONFIG, settings.groupId());
        }
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private String describe() {
        return "kafka source " + context.operatorId() + " subtask " + context.subtaskIndex() + " of job " + context.jobName();
    }
}
