package io.weir.api;

/**
 * Thrown by a plugin (from {@code open}, {@code initializeState} or processing) when restarting the
 * job cannot help: the job fails at once instead of being restarted by its restart strategy, and the
 * failure's message is what the user sees. Named after Flink's exception of the same meaning.
 *
 * <p>Use it for conditions that only a person can resolve, e.g. a sink that would write output that
 * an earlier run already committed. Its message must say what is wrong and what to do.
 */
public class SuppressRestartsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong and what to do, shown to the user as the job's failure
     * @param cause the underlying error, may be null
     */
    public SuppressRestartsException(String message, Throwable cause) {
        super(message, cause);
    }

    /** @param message what is wrong and what to do, shown to the user as the job's failure */
    public SuppressRestartsException(String message) {
        super(message);
    }

    /**
     * @param failure any error, may be null
     * @return the first {@code SuppressRestartsException} in {@code failure}'s cause chain, or null
     */
    public static SuppressRestartsException findIn(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SuppressRestartsException s) {
                return s;
            }
        }
        return null;
    }
}
