package io.weir.plugin.kafkaclient;

import io.weir.api.plugin.PluginConfig;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KafkaClientPropertiesTest {
    private static final Set<String> OWNED = Set.of("bootstrap.servers", "transactional.id");

    private static PluginConfig config(Map<String, Object> values) {
        return new PluginConfig("operators[1].config", values, Path.of("."));
    }

    @Test
    void prefixedSettingsReachTheClientWithThePrefixRemovedAndCountAsRead() {
        PluginConfig c = config(Map.of("topic", "t", "properties.security.protocol", "SASL_SSL",
                "properties.request.timeout.ms", 5000, "properties.enable.metrics.push", false));
        KafkaClientProperties p = KafkaClientProperties.from(c, OWNED);
        assertThat(p.values()).containsExactlyEntriesOf(new java.util.TreeMap<>(Map.of("security.protocol", "SASL_SSL",
                "request.timeout.ms", "5000", "enable.metrics.push", "false")));
        assertThat(c.unaskedKeys()).containsExactly("topic");
        Properties target = new Properties();
        target.put("bootstrap.servers", "b:9092");
        p.applyTo(target);
        assertThat(target).containsEntry("security.protocol", "SASL_SSL").containsEntry("bootstrap.servers", "b:9092");
    }

    @Test
    void aKeyTheConnectorOwnsIsRefusedNamingIt() {
        assertThatThrownBy(() -> KafkaClientProperties.from(config(Map.of("properties.transactional.id", "x")), OWNED))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("operators[1].config.properties.transactional.id is set by the connector itself")
                .hasMessageContaining("[bootstrap.servers, transactional.id]");
        assertThatThrownBy(() -> KafkaClientProperties.from(config(Map.of("properties.", "x")), OWNED))
                .hasMessageContaining("operators[1].config.properties. names no Kafka client setting");
    }

    @Test
    void secretsAreMaskedInToStringAndABadValueIsNotQuoted() {
        String jaas = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"hunter2\";";
        KafkaClientProperties p = KafkaClientProperties.from(config(Map.of("properties.sasl.jaas.config", jaas,
                "properties.ssl.truststore.password", "tspw", "properties.ssl.key.password", "kpw",
                "properties.sasl.oauthbearer.client.credentials.client.secret", "cs", "properties.sasl.mechanism", "PLAIN")), OWNED);
        assertThat(p.toString()).isEqualTo("{sasl.jaas.config=******, sasl.mechanism=PLAIN,"
                + " sasl.oauthbearer.client.credentials.client.secret=******, ssl.key.password=******, ssl.truststore.password=******}");
        assertThat(p.values()).containsEntry("sasl.jaas.config", jaas);
        assertThatThrownBy(() -> KafkaClientProperties.from(config(Map.of("properties.sasl.jaas.config", List.of("hunter2"))), OWNED))
                .hasMessage("operators[1].config.properties.sasl.jaas.config must be a string, number or boolean (a Kafka client setting's value)");
    }

    @Test
    void anAuthenticationFailureIsFoundInTheCauseChainAndNamedWithTheAddress() {
        Exception e = new ExecutionException(new SaslAuthenticationException("Authentication failed: Invalid username or password"));
        assertThat(KafkaClientProperties.isAuthenticationFailure(e)).isTrue();
        assertThat(KafkaClientProperties.isAuthenticationFailure(new ExecutionException(new IllegalStateException("x")))).isFalse();
        assertThat(KafkaClientProperties.authenticationError("h:9093", e)).startsWith(
                "authentication failed at Kafka broker h:9093 (Authentication failed: Invalid username or password)");
    }
}
