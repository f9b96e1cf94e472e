package io.weir.core.config;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Options of the engine itself, shared by every job it runs: they size resources created once, when
 * the engine starts. They come from the engine's configuration (OSGi ConfigurationAdmin, PID
 * {@value #PID}; in the distribution the file {@code conf/engine/io.weir.engine.cfg}), never from a
 * job: the job parser rejects a job file or {@code --set} naming one, saying where it goes. Every
 * other option is a job option (docs/configuration.md lists the split).
 */
public final class EngineOptions {
    private EngineOptions() {
    }

    /** ConfigurationAdmin PID of the engine's configuration. */
    public static final String PID = "io.weir.engine";
    /** Where the distribution keeps the engine's configuration, relative to its root (for messages). */
    public static final String FILE = "conf/engine/" + PID + ".cfg";

    /** Threads of the AsyncOperations pool that writes every job's snapshot parts. */
    public static final ConfigOption<Integer> ASYNC_THREADS = ConfigOption.intOption(
            "state.async-snapshot.threads", 2, "Threads writing asynchronous snapshot parts, shared by all jobs.").atLeast(1, "");

    /** @return every engine option */
    public static List<ConfigOption<?>> all() {
        return List.of(ASYNC_THREADS);
    }

    /** @return the engine option with this key, if {@code key} names one */
    public static Optional<ConfigOption<?>> byKey(String key) {
        return all().stream().filter(o -> o.key().equals(key)).findFirst();
    }

    /**
     * Reads the engine options from a configuration's properties. Keys that are not engine options
     * (ConfigurationAdmin's own, such as {@code service.pid}, or a file's bookkeeping) are ignored.
     *
     * @param properties the configuration's properties (values as strings or numbers)
     * @param source where they came from, for messages (e.g. the file name)
     * @return the parsed engine configuration
     * @throws IllegalArgumentException naming the key, its value and {@code source} if a value does not
     *         parse or is out of its option's bound
     */
    public static Configuration fromProperties(Map<String, ?> properties, String source) {
        Map<String, Object> raw = new HashMap<>();
        for (ConfigOption<?> option : all()) {
            Object value = properties.get(option.key());
            if (value != null) {
                checked(option, value, source);
                raw.put(option.key(), value);
            }
        }
        return new Configuration(raw);
    }

    private static <T> void checked(ConfigOption<T> option, Object value, String source) {
        try {
            option.check(option.parser().apply(value));
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new IllegalArgumentException(source + ": " + option.key() + "=" + value + " " + e.getMessage(), e);
        }
    }
}
