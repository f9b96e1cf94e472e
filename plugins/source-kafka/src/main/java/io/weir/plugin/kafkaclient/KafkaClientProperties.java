package io.weir.plugin.kafkaclient;

import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.PluginSetting;
import org.apache.kafka.common.errors.AuthenticationException;

import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Kafka client settings a user passes through a connector's config, as Flink's Kafka connectors do: every
 * {@code properties.<kafka-client-key>} setting (e.g. {@code properties.security.protocol},
 * {@code properties.sasl.mechanism}, {@code properties.sasl.jaas.config}) goes to the connector's consumer,
 * producer and admin clients with the prefix removed. Keys the connector sets itself (bootstrap servers,
 * serializers, transactional ids, ...) are refused, naming the key. Values whose key names a secret
 * ({@link #isSecret}) never appear in logs or error messages: {@link #toString} masks them.
 * Shared by the {@code kafka} source and the {@code kafka-2pc} sink (the sink's bundle embeds this package).
 *
 * <p>Immutable and thread-safe.
 */
public final class KafkaClientProperties {
    /** The prefix of pass-through settings in a connector's config. */
    public static final String PREFIX = "properties.";
    /** What {@link #toString} prints instead of a secret value. */
    public static final String MASK = "******";

    private final SortedMap<String, String> values;

    private KafkaClientProperties(SortedMap<String, String> values) {
        this.values = Collections.unmodifiableSortedMap(values);
    }

    /** @return the description of the {@code properties.*} setting, for a factory's {@code settings()} */
    public static PluginSetting setting() {
        return PluginSetting.optional(PREFIX + "<kafka-client-key>", "string", null,
                "any Kafka client setting passed to the connector's clients, e.g. properties.security.protocol,"
                        + " properties.sasl.mechanism, properties.sasl.jaas.config (secrets are masked in logs);"
                        + " settings the connector owns are refused");
    }

    /**
     * Reads every {@code properties.*} key of {@code config} (marking it as read, so it is not reported as unknown).
     *
     * @param config the connector's config
     * @param owned Kafka client keys the connector sets itself, e.g. {@code bootstrap.servers}
     * @return the client settings, prefix removed
     * @throws IllegalArgumentException naming the key (never the value) if it is just the prefix, is owned by the
     *         connector, or its value is not a string, number or boolean
     */
    public static KafkaClientProperties from(PluginConfig config, Set<String> owned) {
        SortedMap<String, String> out = new TreeMap<>();
        for (String key : new TreeSet<>(config.keys())) {
            if (!key.startsWith(PREFIX)) {
                continue;
            }
            Object v = config.raw(key);
            String clientKey = key.substring(PREFIX.length());
            if (clientKey.isBlank()) {
                throw config.error(key, "names no Kafka client setting: write properties.<key>, e.g. properties.security.protocol");
            }
            if (owned.contains(clientKey)) {
                throw config.error(key, "is set by the connector itself and cannot be overridden (owned keys: "
                        + new TreeSet<>(owned) + "); remove it, or use the connector's own option where it has one");
            }
            if (!(v instanceof String || v instanceof Number || v instanceof Boolean)) {
                throw config.error(key, "must be a string, number or boolean (a Kafka client setting's value)");
            }
            out.put(clientKey, String.valueOf(v));
        }
        return new KafkaClientProperties(out);
    }

    /** @return no client settings */
    public static KafkaClientProperties none() {
        return new KafkaClientProperties(new TreeMap<>());
    }

    /** @return the settings, prefix removed, sorted by key (unmodifiable; contains secrets: never log it) */
    public Map<String, String> values() {
        return values;
    }

    /**
     * Copies the settings into {@code target}; call before setting the connector's own keys, so that those win.
     *
     * @param target the client's properties
     * @return {@code target}
     */
    public Properties applyTo(Properties target) {
        target.putAll(values);
        return target;
    }

    /**
     * @param clientKey a Kafka client key, without the prefix
     * @return whether its value is a secret: the key contains {@code password}, {@code secret}, {@code jaas} or
     *         {@code credentials}, or ends with {@code .key} (e.g. {@code ssl.key.password}, {@code sasl.jaas.config},
     *         {@code sasl.oauthbearer.client.credentials.client.secret}, {@code ssl.keystore.key})
     */
    public static boolean isSecret(String clientKey) {
        String k = clientKey.toLowerCase(Locale.ROOT);
        return k.contains("password") || k.contains("secret") || k.contains("jaas") || k.contains("credentials")
                || k.endsWith(".key");
    }

    /**
     * @param e a failure of a Kafka client call, or null
     * @return whether {@code e} or one of its causes is a Kafka {@link AuthenticationException} (wrong credentials,
     *         a SASL mechanism the broker does not enable, a TLS handshake failure)
     */
    public static boolean isAuthenticationFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof AuthenticationException) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param bootstrapServers the address the client was given
     * @param e the authentication failure ({@link #isAuthenticationFailure})
     * @return a one-line explanation naming the address and what to check; the broker's message says which user
     *         or mechanism failed and never carries the password
     */
    public static String authenticationError(String bootstrapServers, Throwable e) {
        Throwable t = e;
        while (t != null && !(t instanceof AuthenticationException)) {
            t = t.getCause();
        }
        return "authentication failed at Kafka broker " + bootstrapServers + " (" + (t == null ? e : t.getMessage())
                + "); check properties.security.protocol, properties.sasl.mechanism and the user and password in"
                + " properties.sasl.jaas.config";
    }

    /** @return the settings as {@code {key=value, ...}} with every secret value replaced by {@value #MASK} */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("{");
        values.forEach((k, v) -> b.append(b.length() > 1 ? ", " : "").append(k).append('=').append(isSecret(k) ? MASK : v));
        return b.append('}').toString();
    }
}
