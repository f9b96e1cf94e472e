package io.weir.cli.command;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One command handed from the launcher into OSGi. It crosses the class-path/bundle boundary as a
 * {@code Map<String, Object>} of JDK types only (see {@link #fromMap}), because the launcher's
 * class loader has no Weir classes.
 *
 * <p>Map shape (the launcher's {@code io.weir.launcher.CommandBridge} writes it):
 * <ul>
 * <li>{@value #KEY_COMMAND}: {@code "run"} or {@code "plugins"}</li>
 * <li>{@value #KEY_JOB}: absolute path of the job file (String), {@code run} only</li>
 * <li>{@value #KEY_OVERRIDES}: {@code Map<String, String>} of {@code --set key=value}, {@code run} only, may be absent</li>
 * </ul>
 *
 * @param command which command
 * @param jobFile the job file ({@code run}), else null
 * @param overrides configuration overrides, in command-line order; empty for {@code plugins}
 */
public record CommandRequest(Command command, Path jobFile, Map<String, String> overrides) {
    /** Map key of the command name. */
    public static final String KEY_COMMAND = "command";
    /** Map key of the job file path. */
    public static final String KEY_JOB = "job";
    /** Map key of the configuration overrides. */
    public static final String KEY_OVERRIDES = "overrides";

    /** The commands that run inside OSGi. */
    public enum Command {
        /** Run one job to its end: {@code weir run JOB.json}. */
        RUN,
        /** List installed plugin types: {@code weir plugins}. */
        PLUGINS
    }

    /**
     * @throws IllegalArgumentException if {@code run} has no job file or {@code plugins} has one
     */
    public CommandRequest {
        if (command == null) {
            throw new IllegalArgumentException("command is required");
        }
        if (command == Command.RUN && jobFile == null) {
            throw new IllegalArgumentException("run needs a job file");
        }
        if (command == Command.PLUGINS && jobFile != null) {
            throw new IllegalArgumentException("plugins takes no job file, got " + jobFile);
        }
        overrides = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(overrides == null ? Map.of() : overrides));
    }

    /**
     * Reads the map the launcher built.
     *
     * @param map see the class Javadoc
     * @return the request
     * @throws IllegalArgumentException naming the key if the map does not have the shape above
     */
    public static CommandRequest fromMap(Map<?, ?> map) {
        Object command = map.get(KEY_COMMAND);
        if (!(command instanceof String name)) {
            throw new IllegalArgumentException("request." + KEY_COMMAND + " must be \"run\" or \"plugins\", got " + command);
        }
        switch (name) {
            case "plugins" -> {
                return new CommandRequest(Command.PLUGINS, null, Map.of());
            }
            case "run" -> {
                Object job = map.get(KEY_JOB);
                if (!(job instanceof String path) || path.isBlank()) {
                    throw new IllegalArgumentException("request." + KEY_JOB + " must be the job file path, got " + job);
                }
                Map<String, String> overrides = new LinkedHashMap<>();
                Object raw = map.get(KEY_OVERRIDES);
                if (raw instanceof Map<?, ?> m) {
                    for (Map.Entry<?, ?> e : m.entrySet()) {
                        if (!(e.getKey() instanceof String k) || !(e.getValue() instanceof String v)) {
                            throw new IllegalArgumentException("request." + KEY_OVERRIDES + " must map strings to strings, got "
                                    + e.getKey() + "=" + e.getValue());
                        }
                        overrides.put(k, v);
                    }
                } else if (raw != null) {
                    throw new IllegalArgumentException("request." + KEY_OVERRIDES + " must be a map, got " + raw);
                }
                return new CommandRequest(Command.RUN, Path.of(path), overrides);
            }
            default -> throw new IllegalArgumentException("request." + KEY_COMMAND + " must be \"run\" or \"plugins\", got \"" + name + "\"");
        }
    }
}
