package io.weir.launcher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks of command-line arguments that need no OSGi, done before Felix boots so that a typo costs
 * milliseconds, not a framework start. Every failure is a {@link LauncherException} with exit code
 * {@link ExitCodes#USAGE}.
 */
public final class Arguments {
    private Arguments() {
    }

    /**
     * @param job the job file as given (relative to the working directory, or absolute)
     * @return its absolute, normalized path
     * @throws LauncherException (exit 2) if it does not exist, is a directory or is not readable
     */
    public static Path requireReadableJobFile(Path job) {
        Path file = job.toAbsolutePath().normalize();
        if (!Files.exists(file)) {
            throw new LauncherException(ExitCodes.USAGE, "job file " + job + " does not exist (looked for " + file + ")");
        }
        if (Files.isDirectory(file)) {
            throw new LauncherException(ExitCodes.USAGE, "job file " + job + " is a directory; give the job's .json file");
        }
        if (!Files.isReadable(file)) {
            throw new LauncherException(ExitCodes.USAGE, "job file " + file + " is not readable");
        }
        return file;
    }

    /**
     * @param pairs the values of {@code --set}, each {@code key=value}; the value may be empty and may
     *        contain {@code =}, the key may not be empty
     * @return key to value in the given order; a later {@code --set} of the same key wins
     * @throws LauncherException (exit 2) naming the bad pair
     */
    public static Map<String, String> parseOverrides(List<String> pairs) {
        Map<String, String> result = new LinkedHashMap<>();
        for (String pair : pairs) {
            int eq = pair.indexOf('=');
            if (eq < 0) {
                throw new LauncherException(ExitCodes.USAGE, "--set '" + pair
                        + "' is not key=value (e.g. --set execution.checkpointing.interval=5s)");
            }
            String key = pair.substring(0, eq).trim();
            if (key.isEmpty()) {
                throw new LauncherException(ExitCodes.USAGE, "--set '" + pair + "' has an empty key; use --set key=value");
            }
            result.put(key, pair.substring(eq + 1));
        }
        return result;
    }
}
