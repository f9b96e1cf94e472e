package io.weir.launcher;

/**
 * Exit codes of {@code bin/weir}. The commands inside OSGi return the same numbers
 * ({@code io.weir.cli.command.ExitCodes}, which the launcher cannot import: it has no Weir classes).
 */
public final class ExitCodes {
    /** Success; for {@code run}: the job FINISHED. */
    public static final int OK = 0;
    /** The job FAILED or was CANCELED, or the engine could not be started (e.g. a bundle is missing). */
    public static final int FAILED = 1;
    /** Bad command line or job file: nothing was started. */
    public static final int USAGE = 2;
    /** Interrupted by Ctrl-C (128 + SIGINT). */
    public static final int INTERRUPTED = 130;

    private ExitCodes() {
    }
}
