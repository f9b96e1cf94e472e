package io.weir.plugin.kafkasink;

import io.weir.api.FieldType;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.plugin.kafkaclient.KafkaClientProperties;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * The validated configuration of a {@code kafka-2pc} sink.
 *
 * @param bootstrapServers {@code bootstrap-servers}: comma-separated {@code host:port} list (required)
 * @param topic {@code topic}: the topic written (required; must exist)
 * @param format {@code format}: {@code json} (each row one JSON object, default) or {@code raw} (the
 *        single STRING or BYTES field of the row as the value)
 * @param keyField {@code key-field}: the field whose value (as UTF-8 text) is the record key, so equal
 *        values go to one partition; null for no key
 * @param transactionTimeout {@code transaction-timeout-ms}: how long the broker keeps a transaction
 *        open before aborting it (default 15 min); must cover a crash and the recovery that commits it,
 *        and be at most the broker's {@code transaction.max.timeout.ms}
 * @param ignoreLostTransactions {@code ignore-lost-transactions}: on recovery, skip (with an ERROR log)
 *        a recorded transaction the broker already aborted instead of failing the job (default false)
 * @param transactionalIdPrefix {@code transactional-id-prefix}: prefix of the transactional ids, default
 *        {@code <job name>-<operator id>} (set when the job is started; null here means "derive it")
 * @param allowWithoutCheckpointing {@code allow-without-checkpointing}: start even when
 *        {@code execution.checkpointing.interval} is unset (default false): everything is then committed by
 *        the final checkpoint of a bounded job, and an unbounded job never commits
 * @param exactlyOnce {@code delivery-guarantee}: {@code exactly-once} (default, Kafka transactions committed with
 *        the checkpoint) or {@code at-least-once} (a plain idempotent producer flushed at every checkpoint;
 *        records visible at once, duplicated after a failure)
 * @param holdBeforeCommitMs testing aid ({@code debug.inject-delay.before-commit}, ms, default 0, at most 1 h):
 *        the sink's first commit of a transaction it pre-committed itself (in a job with periodic checkpoints,
 *        that of a checkpoint taken mid-run, not the final one) waits this long first, on the task thread, so
 *        that a test can kill the process between the pre-commit and the commit
 * @param clientProperties {@code properties.<kafka-client-key>}: further settings of the producer and admin clients
 *        (security and the like); never the keys in {@link #OWNED_CLIENT_KEYS}
 */
public record KafkaSinkSettings(String bootstrapServers, String topic, String format, String keyField,
        Duration transactionTimeout, boolean ignoreLostTransactions, String transactionalIdPrefix,
        boolean allowWithoutCheckpointing, boolean exactlyOnce, long holdBeforeCommitMs,
        KafkaClientProperties clientProperties) {
    /**
     * Producer and admin keys the sink sets itself, refused as {@code properties.<key>}: the address, topic-independent
     * identity and the transaction settings the exactly-once protocol depends on, and the byte serializers.
     */
    public static final Set<String> OWNED_CLIENT_KEYS = Set.of("bootstrap.servers", "client.id", "transactional.id",
            "transaction.timeout.ms", "enable.idempotence", "acks", "isolation.level", "key.serializer", "value.serializer");

    /** Default transaction timeout: long enough for a crash and a recovery, and the broker's default maximum. */
    public static final Duration DEFAULT_TRANSACTION_TIMEOUT = Duration.ofMinutes(15);

    /** @throws IllegalArgumentException if a required value is missing or the timeout not positive */
    public KafkaSinkSettings {
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        Objects.requireNonNull(topic, "topic");
        if (!format.equals("json") && !format.equals("raw")) {
            throw new IllegalArgumentException("format must be json or raw, got " + format);
        }
        if (transactionTimeout.isNegative() || transactionTimeout.isZero()) {
            throw new IllegalArgumentException("transaction timeout must be positive, got " + transactionTimeout);
        }
        Objects.requireNonNull(clientProperties, "clientProperties");
    }

    /**
     * Reads and checks the config against the input schema; contacts no broker ({@link BrokerCheck} does).
     *
     * @throws IllegalArgumentException naming the config field, e.g. {@code key-field 'x' is not a field of
     *         the input (fields: [a, b])}
     */
    public static KafkaSinkSettings from(PluginConfig config, Schema input) {
        // read every setting first, so that an unknown key is reported with all settings known
        String servers = config.getString("bootstrap-servers", null);
        String topic = config.getString("topic", null);
        String format = config.getString("format", "json");
        String keyField = config.getString("key-field", null);
        long timeoutMs = config.getLong("transaction-timeout-ms", DEFAULT_TRANSACTION_TIMEOUT.toMillis());
        boolean ignoreLost = config.getBoolean("ignore-lost-transactions", false);
        String prefix = config.getString("transactional-id-prefix", null);
        boolean allowWithoutCheckpointing = config.getBoolean("allow-without-checkpointing", false);
        String guarantee = config.getString("delivery-guarantee", "exactly-once");
        long hold = config.getLong("debug.inject-delay.before-commit", 0);
        KafkaClientProperties clientProperties = KafkaClientProperties.from(config, OWNED_CLIENT_KEYS);
        servers = config.requireString("bootstrap-servers").strip(); // fails naming the key if absent
        topic = config.requireString("topic").strip();
        if (servers.isEmpty()) {
            throw config.error("bootstrap-servers", "must list at least one host:port");
        }
        if (topic.isEmpty()) {
            throw config.error("topic", "must not be empty");
        }
        if (!format.equals("json") && !format.equals("raw")) {
            throw config.error("format", "must be json or raw, got '" + format + "'");
        }
        if (format.equals("raw") && (input.size() != 1
                || (input.field(0).type() != FieldType.STRING && input.field(0).type() != FieldType.BYTES))) {
            throw config.error("format", "raw needs an input of exactly one STRING or BYTES field, got " + input);
        }
        if (keyField != null && input.indexOf(keyField) < 0) {
            throw config.error("key-field", "'" + keyField + "' is not a field of the input (fields: " + input.names() + ")");
        }
        if (timeoutMs <= 0) {
            throw config.error("transaction-timeout-ms", "must be positive, got " + timeoutMs);
        }
        if (!guarantee.equals("exactly-once") && !guarantee.equals("at-least-once")) {
            throw config.error("delivery-guarantee", "must be exactly-once or at-least-once, got '" + guarantee + "'");
        }
        if (hold < 0 || hold > 3_600_000) {
            throw config.error("debug.inject-delay.before-commit", "must be between 0 and 3600000 ms, got " + hold);
        }
        if (prefix != null && !prefix.matches("[A-Za-z0-9._-]+")) {
            throw config.error("transactional-id-prefix", "must be letters, digits, '.', '_', '-', got '" + prefix + "'");
        }
        return new KafkaSinkSettings(servers, topic, format, keyField, Duration.ofMillis(timeoutMs),
                ignoreLost, prefix, allowWithoutCheckpointing,
                guarantee.equals("exactly-once"), hold, clientProperties);
    }
}
