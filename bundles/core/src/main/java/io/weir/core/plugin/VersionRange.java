package io.weir.core.plugin;

import java.util.Objects;

/**
 * An OSGi version range a job pins an operator's plugin to: {@code [1.0,2.0)} (brackets include,
 * parentheses exclude the bound), or a bare version {@code 1.1} meaning "1.1 or later".
 *
 * @param floor the lowest version
 * @param floorInclusive whether {@code floor} itself is in the range
 * @param ceiling the highest version, or null for no upper bound
 * @param ceilingInclusive whether {@code ceiling} itself is in the range (false without a ceiling)
 */
public record VersionRange(PluginVersion floor, boolean floorInclusive, PluginVersion ceiling, boolean ceilingInclusive) {
    /** Every version (the default when a job gives none: the highest installed one is taken). */
    public static final VersionRange ANY = new VersionRange(PluginVersion.UNVERSIONED, true, null, false);

    /**
     * @throws IllegalArgumentException if the ceiling is below the floor
     */
    public VersionRange {
        Objects.requireNonNull(floor, "floor");
        if (ceiling != null && ceiling.compareTo(floor) < 0) {
            throw new IllegalArgumentException("version range ceiling " + ceiling + " is below its floor " + floor);
        }
    }

    /**
     * @param text {@code [a,b)}, {@code [a,b]}, {@code (a,b)}, {@code (a,b]} or a bare version {@code a} (a or later)
     * @return the range
     * @throws IllegalArgumentException naming the text and the expected form
     */
    public static VersionRange parse(String text) {
        String t = text.trim();
        try {
            if (t.isEmpty()) {
                throw new IllegalArgumentException("empty");
            }
            char first = t.charAt(0);
            if (first != '[' && first != '(') {
                return new VersionRange(PluginVersion.parse(t), true, null, false);
            }
            char last = t.charAt(t.length() - 1);
            int comma = t.indexOf(',');
            if ((last != ']' && last != ')') || comma < 0) {
                throw new IllegalArgumentException("unbalanced");
            }
            return new VersionRange(PluginVersion.parse(t.substring(1, comma)), first == '[',
                    PluginVersion.parse(t.substring(comma + 1, t.length() - 1)), last == ']');
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + text + "' is not a version range; write e.g. \"[1.0,2.0)\" (1.0 up to, "
                    + "not including, 2.0) or \"1.1\" (1.1 or later)", e);
        }
    }

    /** @return whether {@code v} lies in this range */
    public boolean includes(PluginVersion v) {
        int f = v.compareTo(floor);
        if (f < 0 || f == 0 && !floorInclusive) {
            return false;
        }
        if (ceiling == null) {
            return true;
        }
        int c = v.compareTo(ceiling);
        return c < 0 || c == 0 && ceilingInclusive;
    }

    /** @return the range as a job spec writes it; {@code any} for {@link #ANY} */
    @Override
    public String toString() {
        if (equals(ANY)) {
            return "any";
        }
        if (ceiling == null) {
            return floorInclusive ? floor.toString() : "(" + floor + ",)";
        }
        return (floorInclusive ? "[" : "(") + floor + "," + ceiling + (ceilingInclusive ? "]" : ")");
    }
}
