package io.weir.rest.node;

/**
 * A submitted job spec is invalid or names plugins that are not installed (REST: 400). The message
 * is the job parser's, naming the field path (e.g. {@code operators[1].parallelism}).
 */
public final class JobSubmissionException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong, naming the field
     * @param cause the parser's or engine's exception, or null
     */
    public JobSubmissionException(String message, Throwable cause) {
        super(message, cause);
    }
}
