package io.weir.plugin.kafkasink;

import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.PluginSetting;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.sink.TwoPhaseCommittingSink;
import io.weir.plugin.kafkaclient.KafkaClientProperties;
import org.osgi.service.component.annotations.Component;

import java.util.List;

/**
 * The {@code kafka-2pc} sink: exactly-once into a Kafka topic through Kafka transactions. See
 * {@link KafkaSinkSettings} (options) and {@link KafkaSink} (protocol). Stateless and thread-safe.
 */
@Component(service = SinkFactory.class, property = "weir.plugin.type=" + KafkaSinkFactory.TYPE)
public final class KafkaSinkFactory implements SinkFactory {
    /** The type name in job files. */
    public static final String TYPE = "kafka-2pc";

    /** The settings {@link #settings()} describes, as docs/connectors-kafka.md lists them. */
    static final List<PluginSetting> SETTINGS = List.of(
            PluginSetting.required("bootstrap-servers", "string", "host:port[,host:port...] of the Kafka brokers"),
            PluginSetting.required("topic", "string", "the topic written; must exist (checked before the job starts)"),
            PluginSetting.optional("format", "string", "json",
                    "json (each row one JSON object) or raw (the single string/bytes field as the value)"),
            PluginSetting.optional("key-field", "string", null,
                    "field whose value (as UTF-8 text) is the record key, so equal keys go to one partition; none: no key"),
            PluginSetting.optional("transaction-timeout-ms", "long", "900000",
                    "ms the broker keeps a transaction open; at most the broker's transaction.max.timeout.ms; must cover a crash and recovery"),
            PluginSetting.optional("ignore-lost-transactions", "boolean", "false",
                    "on recovery, skip (ERROR log) a recorded transaction the broker already aborted instead of failing the job"),
            PluginSetting.optional("transactional-id-prefix", "string", null,
                    "prefix of the transactional ids (letters, digits, . _ -); default <job name>-<operator id>"),
            PluginSetting.optional("allow-without-checkpointing", "boolean", "false",
                    "start even without execution.checkpointing.interval (then only a bounded job's final checkpoint commits)"),
            PluginSetting.optional("delivery-guarantee", "string", "exactly-once",
                    "exactly-once (Kafka transactions committed with each checkpoint) or at-least-once (plain producer flushed at each checkpoint)"),
            PluginSetting.optional("debug.inject-delay.before-commit", "long", "0",
                    "testing aid: ms the first commit of a mid-run checkpoint's transaction waits after its pre-commit (to kill the process there)"),
            KafkaClientProperties.setting());

    /** Public no-arg constructor for DS and {@link java.util.ServiceLoader}. */
    public KafkaSinkFactory() {
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
     * Checks the config and, against the broker (each check bounded by 10 s): that it answers, that the
     * topic exists and that the transaction timeout is at most the broker's {@code transaction.max.timeout.ms}.
     *
     * @throws IllegalArgumentException naming the bad config field, the address, topic or timeout
     */
    @Override
    public void validate(PluginConfig config, Schema input) {
        BrokerCheck.check(KafkaSinkSettings.from(config, input), config.path());
    }

    @Override
    public TwoPhaseCommittingSink<KafkaTransaction> create(PluginConfig config, Schema input) {
        KafkaSinkSettings settings = KafkaSinkSettings.from(config, input);
        return settings.exactlyOnce() ? new KafkaSink(settings, input) : new AtLeastOnceKafkaSink(settings, input);
    }
}
