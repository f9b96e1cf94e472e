package io.weir.plugin.filesink;

import io.weir.api.plugin.PluginConfig;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Set;

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
     * Kernel pseudo file systems ({@link FileStore#type()}) that accept no new directories or files,
     * even from root, for whom {@link Files#isWritable} is true everywhere.
     */
    private static final Set<String> PSEUDO_FILE_SYSTEMS = Set.of(
            "proc", "sysfs", "cgroup", "cgroup2", "devpts", "debugfs", "tracefs", "securityfs", "configfs", "bpf", "pstore");

    /**
     * Reads {@code path} (required) and {@code prefix}, and checks that the directory exists and is
     * writable or can be created: its nearest existing ancestor must be a writable directory.
     * Creates nothing (the sink creates the directory when it opens).
     *
     * @throws IllegalArgumentException naming the config field, e.g. when {@code path} exists but is
     *         not a directory, or {@code operators[2].config.path /proc/weir-out cannot be created:
     *         /proc is not writable}
     */
    public static FileSinkSettings from(PluginConfig config) {
        String prefix = config.getString("prefix", "part");
        Path dir = config.requirePath("path").toAbsolutePath();
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw config.error("path", dir + " exists but is not a directory");
        }
        if (Files.isDirectory(dir)) {
            if (!writable(dir)) {
                throw config.error("path", dir + " is not writable");
            }
        } else {
            Path ancestor = dir.getParent();
            while (ancestor != null && !Files.exists(ancestor)) {
                ancestor = ancestor.getParent();
            }
            if (ancestor == null) {
                throw config.error("path", dir + " cannot be created: no ancestor directory exists");
            }
            if (!Files.isDirectory(ancestor)) {
                throw config.error("path", dir + " cannot be created: " + ancestor + " is a file, not a directory");
            }
            if (!writable(ancestor)) {
                throw config.error("path", dir + " cannot be created: " + ancestor + " is not writable");
            }
        }
        if (!prefix.matches(PREFIX_PATTERN)) {
            throw config.error("prefix", "must match " + PREFIX_PATTERN + " (a plain file name prefix), got '" + prefix + "'");
        }
        return new FileSinkSettings(dir, prefix);
    }

    /** @return whether new entries can be created in existing directory {@code dir} */
    private static boolean writable(Path dir) {
        if (!Files.isWritable(dir)) {
            return false;
        }
        try {
            FileStore store = Files.getFileStore(dir);
            return !store.isReadOnly() && !PSEUDO_FILE_SYSTEMS.contains(store.type());
        } catch (IOException e) {
            return false;
        }
    }
}
