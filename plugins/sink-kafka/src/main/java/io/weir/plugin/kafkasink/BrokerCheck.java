package io.weir.plugin.kafkasink;

import io.weir.plugin.kafkaclient.KafkaClientProperties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Checks a {@code kafka-2pc} sink's settings against the broker before the job starts: the broker
 * answers, the topic exists, and the transaction timeout is at most the broker's
 * {@code transaction.max.timeout.ms}. Each check is bounded by {@link #TIMEOUT}. Stateless.
 */
final class BrokerCheck {
    /** How long the broker gets to answer each check. */
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private BrokerCheck() {
    }

    /**
     * @param settings the sink's settings
     * @param path the config's path in the job file, for messages ({@code operators[2].config})
     * @throws IllegalArgumentException naming the address, topic or timeout that is wrong and what to do
     */
    static void check(KafkaSinkSettings settings, String path) {
        Properties p = settings.clientProperties().applyTo(new Properties());
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000);
        try (Admin admin = PluginClassLoader.call(() -> Admin.create(p))) {
            Collection<Node> nodes = awaitAuthenticated(settings, path, admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) TIMEOUT.toMillis())).nodes(),
                    path + ".bootstrap-servers: no Kafka broker answered at " + settings.bootstrapServers() + " within "
                            + TIMEOUT.toSeconds() + " s; check the address, that the broker is running and whether it needs"
                            + " security settings (properties.security.protocol and the like)");
            try {
                await(admin.describeTopics(List.of(settings.topic())).allTopicNames(), null);
            } catch (IllegalArgumentException e) {
                if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                    throw new IllegalArgumentException(path + ".topic: topic '" + settings.topic() + "' does not exist at "
                            + settings.bootstrapServers() + "; create it first (the sink does not create topics)", e);
                }
                throw new IllegalArgumentException(path + ".topic: cannot describe topic '" + settings.topic() + "' at "
                        + settings.bootstrapServers() + ": " + e.getCause(), e);
            }
            Node node = nodes.iterator().next();
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, node.idString());
            Config config = await(admin.describeConfigs(List.of(broker)).all(), path + ": cannot read the configuration of broker "
                    + node.idString() + " at " + settings.bootstrapServers()).get(broker);
            ConfigEntry max = config == null ? null : config.get("transaction.max.timeout.ms");
            if (max != null && max.value() != null) {
                long maxMs = Long.parseLong(max.value());
                if (settings.transactionTimeout().toMillis() > maxMs) {
                    throw new IllegalArgumentException(path + ".transaction-timeout-ms: " + settings.transactionTimeout().toMillis()
                            + " ms is more than the broker's transaction.max.timeout.ms (" + maxMs + " ms) at "
                            + settings.bootstrapServers() + "; lower transaction-timeout-ms or raise the broker's maximum");
                }
            }
        }
    }

    /** As {@link #await}, but an authentication failure is reported as such, naming the address. */
    private static <T> T awaitAuthenticated(KafkaSinkSettings settings, String path, org.apache.kafka.common.KafkaFuture<T> future,
            String message) {
        try {
            return await(future, message);
        } catch (IllegalArgumentException e) {
            if (KafkaClientProperties.isAuthenticationFailure(e)) {
                throw new IllegalArgumentException(path + ".properties.sasl.jaas.config: "
                        + KafkaClientProperties.authenticationError(settings.bootstrapServers(), e), e.getCause());
            }
            throw e;
        }
    }

    private static <T> T await(org.apache.kafka.common.KafkaFuture<T> future, String message) {
        try {
            return future.get(TIMEOUT.toMillis() + 2000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalArgumentException(message == null ? "interrupted" : message, e);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new IllegalArgumentException(message == null ? String.valueOf(cause) : message + " (" + cause + ")", cause);
        }
    }
}
