package io.weir.plugin.kafkasource;

import io.weir.api.FieldType;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.plugin.kafkaclient.KafkaClientProperties;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The validated configuration of a {@code kafka} source.
 *
 * @param bootstrapServers {@code bootstrap-servers} (required): comma-separated {@code host:port}
 * @param topics {@code topics}: the topics read; empty when {@code topic-pattern} is used
 * @param topicPattern {@code topic-pattern}: a regular expression matched against whole topic names
 *        (evaluated once, at the first start), or null
 * @param schema {@code schema} (required): field name → type, as for the {@code file} source
 * @param format {@code format}: {@code json} (a flat JSON object per value, default) or {@code raw} (the
 *        value as the schema's single STRING (UTF-8) or BYTES field)
 * @param startFrom {@code start-from}: where a fresh start begins in every partition
 * @param startTimestampMs {@code start-timestamp-ms}: for {@code start-from=timestamp}, ms since the epoch
 * @param groupId {@code group-id}: the consumer group whose committed offsets {@code group-offsets} starts
 *        from; null otherwise
 * @param bounded {@code bounded}: stop at the end offsets read at the first start (default false)
 * @param discoveryIntervalMs {@code partition-discovery-interval-ms}: how often an unbounded job looks for
 *        partitions (and topics matching the pattern) added while it runs, ms; 0 = only at a restore (default 30000)
 * @param clientProperties {@code properties.<kafka-client-key>}: further settings of the consumer and admin clients
 *        (security and the like); never the keys in {@link #OWNED_CLIENT_KEYS}
 */
public record KafkaSourceSettings(String bootstrapServers, List<String> topics, Pattern topicPattern, Schema schema,
        String format, StartFrom startFrom, long startTimestampMs, String groupId, boolean bounded, long discoveryIntervalMs,
        KafkaClientProperties clientProperties) {

    /**
     * Consumer and admin keys the source sets itself, refused as {@code properties.<key>}: the address has its own
     * option, offsets live in checkpoints (no auto commit or reset), records are read {@code read_committed} as bytes.
     */
    public static final Set<String> OWNED_CLIENT_KEYS = Set.of("bootstrap.servers", "group.id", "client.id",
            "isolation.level", "enable.auto.commit", "auto.offset.reset", "key.deserializer", "value.deserializer");

    /** The default of {@code partition-discovery-interval-ms}: 30 s. */
    public static final long DEFAULT_DISCOVERY_INTERVAL_MS = 30_000;

    /** Where a fresh start begins (a restore always continues from the checkpointed offsets). */
    public enum StartFrom {
        /** The first offset still in each partition. */
        EARLIEST,
        /** The end of each partition at start: only records written later. */
        LATEST,
        /** The first offset whose record timestamp is at least {@code start-timestamp-ms}. */
        TIMESTAMP,
        /** The offsets committed by consumer group {@code group-id}; earliest where it committed none. */
        GROUP_OFFSETS
    }

    /** @throws IllegalArgumentException if neither or both of topics and pattern are given, or the schema is empty */
    public KafkaSourceSettings {
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        topics = List.copyOf(topics);
        if (topics.isEmpty() == (topicPattern == null)) {
            throw new IllegalArgumentException("exactly one of topics and topic pattern must be given");
        }
        if (schema.size() == 0) {
            throw new IllegalArgumentException("schema must have at least one field");
        }
        if (discoveryIntervalMs < 0) {
            throw new IllegalArgumentException("partition discovery interval must be >= 0 ms, got " + discoveryIntervalMs);
        }
        Objects.requireNonNull(clientProperties, "clientProperties");
    }

    /**
     * Reads and checks the config; contacts no broker ({@link KafkaSourceFactory#outputSchema} does).
     *
     * @throws IllegalArgumentException naming the config field
     */
    public static KafkaSourceSettings from(PluginConfig config) {
        // read every setting first, so that an unknown key is reported with all settings known
        String servers = config.getString("bootstrap-servers", null);
        List<String> topics = config.getStringList("topics", List.of());
        String pattern = config.getString("topic-pattern", null);
        Map<String, Object> fields = config.getObject("schema");
        String format = config.getString("format", "json");
        String start = config.getString("start-from", "earliest");
        long timestamp = config.getLong("start-timestamp-ms", -1);
        String group = config.getString("group-id", null);
        boolean bounded = config.getBoolean("bounded", false);
        long discoveryMs = config.getLong("partition-discovery-interval-ms", DEFAULT_DISCOVERY_INTERVAL_MS);
        KafkaClientProperties clientProperties = KafkaClientProperties.from(config, OWNED_CLIENT_KEYS);
        servers = config.requireString("bootstrap-servers").strip(); // fails naming the key if absent
        if (servers.isEmpty()) {
            throw config.error("bootstrap-servers", "must list at least one host:port");
        }
        if (topics.isEmpty() == (pattern == null)) {
            throw config.error("topics", "give either topics (a list of topic names) or topic-pattern (a regular expression), not "
                    + (topics.isEmpty() ? "neither" : "both"));
        }
        Pattern compiled = null;
        if (pattern != null) {
            try {
                compiled = Pattern.compile(pattern);
            } catch (PatternSyntaxException e) {
                throw config.error("topic-pattern", "is not a regular expression: " + e.getDescription());
            }
        }
        if (fields == null || fields.isEmpty()) {
            throw config.error("schema", "is required: an object of field name to type, e.g. {\"delay\": \"long\"}");
        }
        Schema.Builder b = Schema.builder();
        for (Map.Entry<String, Object> e : fields.entrySet()) {
            if (!(e.getValue() instanceof String typeName)) {
                throw config.error("schema." + e.getKey(), "must be a type name string, got " + e.getValue());
            }
            try {
                b.field(e.getKey(), FieldType.parse(typeName));
            } catch (IllegalArgumentException ex) {
                throw config.error("schema." + e.getKey(), ex.getMessage());
            }
        }
        Schema schema = b.build();
        if (!format.equals("json") && !format.equals("raw")) {
            throw config.error("format", "must be json or raw, got '" + format + "'");
        }
        if (format.equals("raw") && (schema.size() != 1
                || (schema.field(0).type() != FieldType.STRING && schema.field(0).type() != FieldType.BYTES))) {
            throw config.error("schema", "format raw needs exactly one field of type string or bytes, got " + schema);
        }
        StartFrom startFrom;
        try {
            startFrom = StartFrom.valueOf(start.toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw config.error("start-from", "must be earliest, latest, timestamp or group-offsets, got '" + start + "'");
        }
        if (startFrom == StartFrom.TIMESTAMP && timestamp < 0) {
            throw config.error("start-timestamp-ms", "is required (ms since the epoch, >= 0) with start-from timestamp");
        }
        if (startFrom == StartFrom.GROUP_OFFSETS && (group == null || group.isBlank())) {
            throw config.error("group-id", "is required with start-from group-offsets");
        }
        if (discoveryMs < 0) {
            throw config.error("partition-discovery-interval-ms", "must be >= 0 (ms; 0 looks for added partitions only at a"
                    + " restore), got " + discoveryMs);
        }
        return new KafkaSourceSettings(servers, topics, compiled, schema, format, startFrom, timestamp, group, bounded, discoveryMs,
                clientProperties);
    }
}
