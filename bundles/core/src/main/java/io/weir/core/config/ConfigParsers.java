package io.weir.core.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parsers shared by {@link ConfigOption}s. Each throws IllegalArgumentException saying what it expected. */
final class ConfigParsers {
    private static final Pattern DURATION = Pattern.compile("\\s*(\\d+)\\s*(ms|milli|millis|s|sec|secs|second|seconds|min|mins|minute|minutes|h|hour|hours)?\\s*");

    private ConfigParsers() {
    }

    static long parseLong(Object v) {
        if (v instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) {
            if (Math.abs(n.doubleValue()) >= 0x1p63) {
                throw new IllegalArgumentException("expected a whole number between " + Long.MIN_VALUE + " and "
                        + Long.MAX_VALUE + ", got " + v);
            }
            return n.longValue();
        }
        try {
            return Long.parseLong(String.valueOf(v).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected a whole number, got '" + v + "'");
        }
    }

    static long parseDurationMs(Object v) {
        if (v instanceof Number n) {
            return parseLong(n);
        }
        Matcher m = DURATION.matcher(String.valueOf(v).toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("expected a duration such as '500 ms', '5 s' or '10 min', got '" + v + "'");
        }
        String unit = m.group(2) == null ? "ms" : m.group(2);
        long msPerUnit = switch (unit.charAt(0)) {
            case 'm' -> unit.startsWith("mi") && !unit.startsWith("mil") ? 60_000 : 1;
            case 's' -> 1000;
            case 'h' -> 3_600_000;
            default -> 1;
        };
        try {
            return Math.multiplyExact(Long.parseLong(m.group(1)), msPerUnit);
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException("duration '" + v + "' is too long: at most " + Long.MAX_VALUE + " ms");
        }
    }

    static boolean parseBoolean(Object v) {
        if (v instanceof Boolean b) {
            return b;
        }
        String s = String.valueOf(v).trim().toLowerCase(Locale.ROOT);
        if (s.equals("true") || s.equals("false")) {
            return Boolean.parseBoolean(s);
        }
        throw new IllegalArgumentException("expected true or false, got '" + v + "'");
    }

    static <E extends Enum<E>> E parseEnum(Class<E> type, Object v) {
        String s = String.valueOf(v).trim().replace('-', '_');
        for (E e : type.getEnumConstants()) {
            if (e.name().equalsIgnoreCase(s)) {
                return e;
            }
        }
        throw new IllegalArgumentException("expected one of " + Arrays.toString(type.getEnumConstants()) + ", got '" + v + "'");
    }
}
