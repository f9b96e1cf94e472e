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
 * Reads one subtask's partitions of the {@code kafka} source. On a fresh start the partitions of the
 * topics (or of the topics matching the pattern) are sorted by topic and partition and dealt
 * round-robin: partition {@code k} of that order goes to subtask {@code k % parallelism}; their start
 * offsets follow {@code start-from}, and in bounded mode their stop offsets are the end offsets at
 * that moment. The per-partition positions are the subtask's operator list state, so a restore
 * continues exactly after the last record covered by the checkpoint.
 *
 * <p>Restores may change the parallelism ({@link KafkaSourceFactory#supportsRescale}): the runtime deals
 * the partition positions of all old subtasks round-robin over the new ones, and each subtask reads
 * exactly the partitions it was dealt. Every subtask also records the partitions it reads in union state,
 * so a restored subtask knows every partition the checkpoint covers; partitions of the topics (or of
 * topics matching the pattern) that it does not cover, i.e. added since, are sorted by topic and
 * partition and the {@code k}-th goes to subtask {@code k % parallelism}, from the earliest offset
 * (unbounded mode only: a bounded job reads what existed at its first start).
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

    private final KafkaSourceSettings settings;
    private final FlatJsonDecoder decoder;

    // Task thread only.
    private OperatorContext context;
    private ListState<PartitionOffset> state;
    private ListState<String> knownState;
    private KafkaConsumer<byte[], byte[]> consumer;
    /** This subtask's partitions and positions, in assignment order. */
    private final Map<TopicPartition, PartitionOffset> positions = new LinkedHashMap<>();

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
            java.util.Set<String> known = new java.util.HashSet<>();
            knownState.get().forEach(known::add);
            if (!settings.bounded() && !known.isEmpty()) {
                List<TopicPartition> added = allPartitions().stream().filter(tp -> !known.contains(tp.toString())).toList();
                List<TopicPartition> mine = dealt(added);
                Map<TopicPartition, Long> earliest = consumer.beginningOffsets(mine, METADATA_TIMEOUT);
                for (TopicPartition tp : mine) {
                    positions.put(tp, new PartitionOffset(tp.topic(), tp.partition(), earliest.get(tp), -1));
                }
                if (!added.isEmpty()) {
                    LOG.info("{} found {} partition(s) the checkpoint does not cover and reads {} of them from the earliest"
                            + " offset: {}", describe(), added.size(), mine.size(), mine);
                }
            }
        } else {
            List<TopicPartition> mine = dealt(allPartitions());
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
    }

    /** @return every partition of the topics (or of the topics matching the pattern), sorted by topic and partition */
    private List<TopicPartition> allPartitions() {
        List<TopicPartition> all = new ArrayList<>();
        if (settings.topicPattern() != null) {
            for (Map.Entry<String, List<PartitionInfo>> e : consumer.listTopics(METADATA_TIMEOUT).entrySet()) {
                if (settings.topicPattern().matcher(e.getKey()).matches()) {
                    e.getValue().forEach(pi -> all.add(new TopicPartition(pi.topic(), pi.partition())));
                }
            }
        } else {
            for (String topic : settings.topics()) {
                List<PartitionInfo> infos = consumer.partitionsFor(topic, METADATA_TIMEOUT);
                if (infos == null || infos.isEmpty()) {
                    throw new IllegalStateException(describe() + ": topic '" + topic + "' does not exist at "
                            + settings.bootstrapServers() + " (or has no partitions)");
                }
                infos.forEach(pi -> all.add(new TopicPartition(pi.topic(), pi.partition())));
            }
        }
        all.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        return all;
    }

    /** @return the {@code k}-th partitions of {@code all} with {@code k % parallelism == subtaskIndex} */
    private List<TopicPartition> dealt(List<TopicPartition> all) {
        List<TopicPartition> mine = new ArrayList<>();
        for (int k = context.subtaskIndex(); k < all.size(); k += context.parallelism()) {
            mine.add(all.get(k));
        }
        return mine;
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
        Properties p = new Properties();
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
