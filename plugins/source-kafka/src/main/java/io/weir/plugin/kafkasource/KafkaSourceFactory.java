package io.weir.plugin.kafkasource;

import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.PluginSetting;
import io.weir.api.plugin.SourceFactory;
import io.weir.api.source.SourceReader;
import io.weir.plugin.kafkaclient.KafkaClientProperties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.osgi.service.component.annotations.Component;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The {@code kafka} source: records of Kafka topics as rows of a declared schema, partitions dealt
 * to subtasks, positions in operator state. See {@link KafkaSourceSettings} (options) and
 * {@link KafkaSourceReader} (behaviour). Stateless and thread-safe.
 */
@Component(service = SourceFactory.class, property = "weir.plugin.type=" + KafkaSourceFactory.TYPE)
public final class KafkaSourceFactory implements SourceFactory {
    /** The type name in job files. */
    public static final String TYPE = "kafka";
    /** How long the broker gets to answer the checks before the job starts. */
    static final Duration CHECK_TIMEOUT = Duration.ofSeconds(10);

    /** The settings {@link #settings()} describes, as docs/connectors-kafka.md lists them. */
    static final List<PluginSetting> SETTINGS = List.of(
            PluginSetting.required("bootstrap-servers", "string", "host:port[,host:port...] of the Kafka brokers"),
            PluginSetting.optional("topics", "list of strings", null,
                    "the topics read; each must exist (checked before the job starts); give this or topic-pattern"),
            PluginSetting.optional("topic-pattern", "string", null,
                    "Java regular expression matched against whole topic names, instead of topics; evaluated at the first start"),
            PluginSetting.required("schema", "object", "field name -> type of the rows, as for the file source"),
            PluginSetting.optional("format", "string", "json",
                    "json (each value one flat JSON object) or raw (the value as the schema's single string or bytes field)"),
            PluginSetting.optional("start-from", "string", "earliest",
                    "where a fresh start begins in each partition: earliest, latest, timestamp or group-offsets"),
            PluginSetting.optional("start-timestamp-ms", "long", null,
                    "ms since the epoch; with start-from timestamp, the first record with a timestamp at or after it"),
            PluginSetting.optional("group-id", "string", null,
                    "consumer group whose committed offsets start-from group-offsets begins at"),
            PluginSetting.optional("bounded", "boolean", "false",
                    "stop at the end offsets read at the first start; the job then finishes"),
            PluginSetting.optional("partition-discovery-interval-ms", "long", "30000",
                    "unbounded: how often each subtask looks for partitions (and matching topics) added while the job runs,"
                            + " read from their earliest offset; 0 = only at a restore"),
            KafkaClientProperties.setting());

    /** Public no-arg constructor for DS and {@link java.util.ServiceLoader}. */
    public KafkaSourceFactory() {
    }

    @Override
    public String type() {
        return TYPE;
    }

    /** @return the settings of this type's {@code config}, as docs/connectors-kafka.md describes them */
    @Override
    public List<PluginSetting> settings() {
        return SETTINGS;
    }

    /**
     * @return true: the partition positions are operator list state, one element per partition, so a restore may
     *         change the parallelism (the runtime deals the partitions over the new subtasks)
     */
    @Override
    public boolean supportsRescale() {
        return true;
    }

    /**
     * Checks the config and, against the broker (within about 10 s), that it answers and that every
     * listed topic exists.
     *
     * @throws IllegalArgumentException naming the config field, the unreachable address or the missing topic
     */
    @Override
    public Schema outputSchema(PluginConfig config) {
        KafkaSourceSettings settings = KafkaSourceSettings.from(config);
        check(settings, config);
        return settings.schema();
    }

    /** @return the {@code bounded} setting */
    @Override
    public boolean isBounded(PluginConfig config) {
        return KafkaSourceSettings.from(config).bounded();
    }

    /** @throws IllegalArgumentException if the config is invalid or {@code output} differs from its schema */
    @Override
    public SourceReader create(PluginConfig config, Schema output) {
        KafkaSourceSettings settings = KafkaSourceSettings.from(config);
        if (!settings.schema().equals(output)) {
            throw config.error("schema", "declares " + settings.schema() + " but the job graph expects " + output);
        }
        return new KafkaSourceReader(settings);
    }

    private static void check(KafkaSourceSettings settings, PluginConfig config) {
        Properties p = settings.clientProperties().applyTo(new Properties());
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) CHECK_TIMEOUT.toMillis());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) CHECK_TIMEOUT.toMillis());
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000);
        try (Admin admin = PluginClassLoader.call(() -> Admin.create(p))) {
            try {
                admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) CHECK_TIMEOUT.toMillis())).nodes()
                        .get(CHECK_TIMEOUT.toMillis() + 2000, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                if (KafkaClientProperties.isAuthenticationFailure(e)) {
                    throw config.error("properties.sasl.jaas.config", KafkaClientProperties.authenticationError(settings.bootstrapServers(), e));
                }
                throw config.error("bootstrap-servers", "no Kafka broker answered at " + settings.bootstrapServers() + " within "
                        + CHECK_TIMEOUT.toSeconds() + " s; check the address, that the broker is running and whether it"
                        + " needs security settings (properties.security.protocol and the like)");
            }
            var perTopic = admin.describeTopics(Set.copyOf(settings.topics())).topicNameValues();
            for (String topic : settings.topics()) {
                try {
                    perTopic.get(topic).get(CHECK_TIMEOUT.toMillis() + 2000, TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                        throw config.error("topics", "topic '" + topic + "' does not exist at " + settings.bootstrapServers()
                                + "; create it or fix the name");
                    }
                    throw config.error("topics", "cannot describe topic '" + topic + "': " + e.getCause());
                } catch (java.util.concurrent.TimeoutException e) {
                    throw config.error("topics", "the broker at " + settings.bootstrapServers() + " did not describe topic '"
                            + topic + "' within " + CHECK_TIMEOUT.toSeconds() + " s");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw config.error("bootstrap-servers", "interrupted while checking the broker");
        }
    }
}
