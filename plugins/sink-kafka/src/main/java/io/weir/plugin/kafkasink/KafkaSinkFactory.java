package io.weir.plugin.kafkasink;

import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.sink.TwoPhaseCommittingSink;
import org.osgi.service.component.annotations.Component;

/**
 * The {@code kafka-2pc} sink: exactly-once into a Kafka topic through Kafka transactions. See
 * {@link KafkaSinkSettings} (options) and {@link KafkaSink} (protocol). Stateless and thread-safe.
 */
@Component(service = SinkFactory.class, property = "weir.plugin.type=" + KafkaSinkFactory.TYPE)
public final class KafkaSinkFactory implements SinkFactory {
    /** The type name in job files. */
    public static final String TYPE = "kafka-2pc";

    /** Public no-arg constructor for DS and {@link java.util.ServiceLoader}. */
    public KafkaSinkFactory() {
    }

    @Override
    public String type() {
        return TYPE;
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
        return new KafkaSink(KafkaSinkSettings.from(config, input), input);
    }
}
