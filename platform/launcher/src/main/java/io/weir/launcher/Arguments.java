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

    /** The job option {@code --from-savepoint} sets (Flink's key). */
    public static final String SAVEPOINT_PATH_KEY = "execution.savepoint.path";
    /** The job option {@code --allow-non-restored-state} sets (Flink's key). */
    public static final String IGNORE_UNCLAIMED_STATE_KEY = "execution.savepoint.ignore-unclaimed-state";

    /**
     * The job options of {@code --from-savepoint} and {@code --allow-non-restored-state}. Only checks that a
     * {@code _metadata} is there; the engine reads it before the job starts and refuses a corrupt one, or one the
     * job cannot take (exit 2 as well).
     *
     * @param savepoint the savepoint's (or retained checkpoint's) directory or {@code _metadata} file, or null
     * @param allowNonRestoredState the flag
     * @return {@code execution.savepoint.path} (absolute) and, if set, {@code execution.savepoint.ignore-unclaimed-state};
     *         empty without a savepoint
     * @throws LauncherException (exit 2) if the path does not exist or has no {@code _metadata}, or if the flag is
     *         given without a savepoint
     */
    public static Map<String, String> savepointOverrides(Path savepoint, boolean allowNonRestoredState) {
        Map<String, String> result = new LinkedHashMap<>();
        if (savepoint == null) {
            if (allowNonRestoredState) {
                throw new LauncherException(ExitCodes.USAGE, "--allow-non-restored-state needs --from-savepoint PATH");
            }
            return result;
        }
        Path p = savepoint.toAbsolutePath().normalize();
        if (!Files.exists(p)) {
            throw new LauncherException(ExitCodes.USAGE, "--from-savepoint " + savepoint + " does not exist (looked for " + p
                    + "); give the directory of a savepoint or retained checkpoint");
        }
        if (Files.isDirectory(p) && !Files.isRegularFile(p.resolve("_metadata"))) {
            throw new LauncherException(ExitCodes.USAGE, "--from-savepoint " + savepoint + " is not a savepoint or checkpoint:"
                    + " it has no _metadata (a savepoint-<job>-<id> or chk-<id> directory has one)");
        }
        result.put(SAVEPOINT_PATH_KEY, p.toString());
        if (allowNonRestoredState) {
            result.put(IGNORE_UNCLAIMED_STATE_KEY, "true");
        }
        return result;
    }
}
