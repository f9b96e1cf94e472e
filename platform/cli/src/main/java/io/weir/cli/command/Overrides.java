package io.weir.cli.command;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses {@code key=value} configuration overrides, as given to the Gogo command
 * {@code weir:run job.json key=value ...}. (The launcher parses {@code --set} itself, before OSGi starts.)
 */
public final class Overrides {
    private Overrides() {
    }

    /**
     * @param pairs each {@code key=value}; the value may contain {@code =} and may be empty, the key may not
     * @return key to value, in the given order; a later pair for the same key wins
     * @throws IllegalArgumentException naming the bad pair
     */
    public static Map<String, String> parse(List<String> pairs) {
        Map<String, String> result = new LinkedHashMap<>();
        for (String pair : pairs) {
            int eq = pair.indexOf('=');
            if (eq <= 0 || pair.substring(0, eq).isBlank()) {
                throw new IllegalArgumentException("'" + pair + "' is not key=value (e.g. execution.checkpointing.interval=5s)");
            }
            result.put(pair.substring(0, eq).trim(), pair.substring(eq + 1));
        }
        return result;
    }
}
