package io.weir.core.plugin;

import java.util.Objects;

/**
 * A plugin version with OSGi semantics: {@code major.minor.micro.qualifier}, missing parts 0 (or an
 * empty qualifier); ordered by major, minor, micro, then the qualifier as a string. A plugin's version
 * is its bundle's {@code Bundle-Version}.
 *
 * @param major 0 or more
 * @param minor 0 or more
 * @param micro 0 or more
 * @param qualifier letters, digits, '-' and '_'; empty for none
 */
public record PluginVersion(int major, int minor, int micro, String qualifier) implements Comparable<PluginVersion> {
    /** The version of a plugin that does not come from a bundle (ServiceLoader, a test): 0.0.0. */
    public static final PluginVersion UNVERSIONED = new PluginVersion(0, 0, 0, "");

    /**
     * @throws IllegalArgumentException if a number is negative or the qualifier has other characters
     */
    public PluginVersion {
        Objects.requireNonNull(qualifier, "qualifier");
        if (major < 0 || minor < 0 || micro < 0) {
            throw new IllegalArgumentException("version parts must be 0 or more, got " + major + "." + minor + "." + micro);
        }
        if (!qualifier.matches("[A-Za-z0-9_-]*")) {
            throw new IllegalArgumentException("version qualifier '" + qualifier + "' may hold only letters, digits, '-' and '_'");
        }
    }

    /**
     * @param text {@code 1}, {@code 1.2}, {@code 1.2.3} or {@code 1.2.3.qualifier}
     * @return the version
     * @throws IllegalArgumentException naming the text if it is not such a version
     */
    public static PluginVersion parse(String text) {
        String t = text.trim();
        String[] parts = t.split("\\.", 4);
        try {
            int major = Integer.parseInt(parts[0]);
            int minor = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
            int micro = parts.length > 2 ? Integer.parseInt(parts[2]) : 0;
            return new PluginVersion(major, minor, micro, parts.length > 3 ? parts[3] : "");
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a version; write major.minor.micro, e.g. 1.1.0", e);
        }
    }

    @Override
    public int compareTo(PluginVersion o) {
        int c = Integer.compare(major, o.major);
        if (c == 0) {
            c = Integer.compare(minor, o.minor);
        }
        if (c == 0) {
            c = Integer.compare(micro, o.micro);
        }
        return c != 0 ? c : qualifier.compareTo(o.qualifier);
    }

    /** @return {@code major.minor.micro} plus {@code .qualifier} when there is one */
    @Override
    public String toString() {
        return major + "." + minor + "." + micro + (qualifier.isEmpty() ? "" : "." + qualifier);
    }
}
