package io.weir.plugin.filesink;

import io.weir.api.plugin.PluginConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The validated configuration of a {@code file-2pc} sink.
 *
 * @param directory where committed files go ({@code path}, relative to the job file; created if missing)
 * @param prefix file name prefix ({@code prefix}, default {@code part}): letters, digits, '_', '.', '-',
 *               not starting with '.'
 */
public record FileSinkSettings(Path directory, String prefix) {
    private static final String PREFIX_PATTERN = "[A-Za-z0-9_][A-Za-z0-9_.-]*";

    /** @throws IllegalArgumentException if the prefix is empty or has other characters */
    public FileSinkSettings {
        Objects.requireNonNull(directory, "directory");
        if (prefix == null || !prefix.matches(PREFIX_PATTERN)) {
            throw new IllegalArgumentException("prefix must match " + PREFIX_PATTERN + ", got '" + prefix + "'");
        }
    }

    /**
     * Reads {@code path} (required) and {@code prefix}.
     *
     * @throws IllegalArgumentException naming the config field, e.g. when {@code path} exists but is not a directory
     */
    public static FileSinkSettings from(PluginConfig config) {
        Path dir = config.requirePath("path");
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw config.error("path", dir + " exists but is not a directory");
        }
        String prefix = config.getString("prefix", "part");
        if (!prefix.matches(PREFIX_PATTERN)) {
            throw config.error("prefix", "must match " + PREFIX_PATTERN + " (a plain file name prefix), got '" + prefix + "'");
        }
        return new FileSinkSettings(dir, prefix);
    }
}
