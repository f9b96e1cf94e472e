package io.weir.launcher;

/**
 * A failure the launcher reports as {@code error: <message>} on stderr and exits with
 * {@link #exitCode()}; no stack trace, because the message says what to do.
 */
public final class LauncherException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int exitCode;

    /**
     * @param exitCode the process exit code ({@link ExitCodes})
     * @param message what is wrong and what to do, naming the file or option
     */
    public LauncherException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    /**
     * @param exitCode the process exit code ({@link ExitCodes})
     * @param message what is wrong, naming the file or option
     * @param cause the underlying error
     */
    public LauncherException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    /** @return the process exit code */
    public int exitCode() {
        return exitCode;
    }
}
