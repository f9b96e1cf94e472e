package io.weir.cli.command;

/**
 * Process exit codes of {@code bin/weir}, shared by the launcher (which checks what it can before
 * booting Felix) and the commands running inside OSGi. The launcher repeats these numbers in
 * {@code io.weir.launcher.ExitCodes}; keep both in step.
 */
public final class ExitCodes {
    /** The command succeeded; for {@code run}: the job FINISHED. */
    public static final int OK = 0;
    /** The job ran and ended FAILED or CANCELED, or the engine could not be reached. */
    public static final int JOB_FAILED = 1;
    /** Bad command line or bad job file: nothing was started. */
    public static final int USAGE = 2;
    /** Interrupted (Ctrl-C): the job was cancelled. 128 + SIGINT, like a shell. */
    public static final int INTERRUPTED = 130;

    private ExitCodes() {
    }
}
