package io.weir.plugin.basic.window;

import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.time.TimestampExtractor;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The window part of a {@code window-aggregate} config: how rows are assigned to event-time windows, how long
 * a window accepts late rows, and where rows too late for every window go.
 *
 * @param kind tumbling, sliding or session
 * @param sizeMs window length (tumbling, sliding), ms, > 0; for sessions the gap
 * @param slideMs how far consecutive sliding windows start apart, ms, 0 < slide <= size; equals size for tumbling
 * @param allowedLatenessMs how long after a window fired it still accepts rows (each emits an updated row), ms, >= 0
 * @param lateOutput name of the side output for rows too late for every window, or null to drop them (counted)
 * @param timestamps reads each row's event time
 */
public record WindowSpec(Kind kind, long sizeMs, long slideMs, long allowedLatenessMs, String lateOutput,
        TimestampExtractor timestamps) {
    /** Window assigners. */
    public enum Kind {
        TUMBLING, SLIDING, SESSION
    }

    private static final Pattern DURATION = Pattern.compile("\\s*(\\d+)\\s*(ms|s|min|h|d)?\\s*");

    /** @throws IllegalArgumentException if a length is out of range */
    public WindowSpec {
        if (sizeMs <= 0 || slideMs <= 0 || slideMs > sizeMs || allowedLatenessMs < 0) {
            throw new IllegalArgumentException("window lengths out of range: size " + sizeMs + " ms, slide " + slideMs
                    + " ms, allowed lateness " + allowedLatenessMs + " ms");
        }
    }

    /**
     * Reads the window settings ({@code window}, {@code size}, {@code slide}, {@code gap}, {@code allowed-lateness},
     * {@code late-output}, {@code timestamp-field}, {@code timestamp-format}).
     *
     * @throws IllegalArgumentException naming the setting's path when a value is missing, invalid or does not
     *         apply to the window type
     */
    public static WindowSpec from(PluginConfig config, Schema input) {
        String type = config.getString("window", null);
        Long size = duration(config, "size");
        Long slide = duration(config, "slide");
        Long gap = duration(config, "gap");
        Long lateness = duration(config, "allowed-lateness");
        String late = config.getString("late-output", null);
        String field = config.getString("timestamp-field", null);
        String format = config.getString("timestamp-format", null);
        if (type == null) {
            throw config.error("window", "is required: tumbling, sliding or session");
        }
        Kind kind;
        try {
            kind = Kind.valueOf(type.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw config.error("window", "must be tumbling, sliding or session, got '" + type + "'");
        }
        if (field == null) {
            throw config.error("timestamp-field", "is required: the field holding each row's event time");
        }
        TimestampExtractor extractor;
        try {
            extractor = TimestampExtractor.of(input, field, format);
        } catch (IllegalArgumentException e) {
            throw config.error("timestamp-field", e.getMessage().replace("timestamp field '" + field + "' ", "'" + field + "' "));
        }
        if (late != null && late.isEmpty()) {
            throw config.error("late-output", "must be a non-empty side output name");
        }
        long length;
        long step;
        switch (kind) {
            case SESSION -> {
                if (gap == null || size != null || slide != null) {
                    throw config.error(gap == null ? "gap" : size != null ? "size" : "slide",
                            gap == null ? "is required for session windows (inactivity gap, e.g. \"30 min\")"
                                    : "does not apply to session windows (they have a gap)");
                }
                length = gap;
                step = gap;
            }
            case TUMBLING -> {
                if (size == null || slide != null || gap != null) {
                    throw config.error(size == null ? "size" : slide != null ? "slide" : "gap",
                            size == null ? "is required for tumbling windows (e.g. \"1 h\")" : "does not apply to tumbling windows");
                }
                length = size;
                step = size;
            }
            default -> {
                if (size == null || slide == null || gap != null) {
                    throw config.error(size == null ? "size" : slide == null ? "slide" : "gap",
                            gap != null ? "does not apply to sliding windows" : "is required for sliding windows");
                }
                if (slide > size) {
                    throw config.error("slide", "must not exceed size (" + size + " ms), got " + slide + " ms");
                }
                length = size;
                step = slide;
            }
        }
        if (length <= 0 || step <= 0) {
            throw config.error(kind == Kind.SESSION ? "gap" : length <= 0 ? "size" : "slide", "must be more than 0 ms");
        }
        return new WindowSpec(kind, length, step, lateness == null ? 0 : lateness, late, extractor);
    }

    /** @return ms of a duration setting ("500 ms", "5 s", "10 min", "1 h", "1 d", or a number of ms), or null if absent */
    private static Long duration(PluginConfig config, String key) {
        Object v = config.raw(key);
        if (v == null) {
            return null;
        }
        if (v instanceof Number n) {
            if (n.longValue() < 0 || n.doubleValue() != n.longValue()) {
                throw config.error(key, "must be a whole number of ms >= 0, got " + v);
            }
            return n.longValue();
        }
        Matcher m = DURATION.matcher(String.valueOf(v).toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw config.error(key, "must be a duration such as \"500 ms\", \"30 s\", \"10 min\", \"1 h\" or \"1 d\", got '" + v + "'");
        }
        long unit = switch (m.group(2) == null ? "ms" : m.group(2)) {
            case "s" -> 1000L;
            case "min" -> 60_000L;
            case "h" -> 3_600_000L;
            case "d" -> 86_400_000L;
            default -> 1L;
        };
        try {
            return Math.multiplyExact(Long.parseLong(m.group(1)), unit);
        } catch (ArithmeticException | NumberFormatException e) {
            throw config.error(key, "is too long: '" + v + "'");
        }
    }
}
