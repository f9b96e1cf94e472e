package io.weir.rest.node;

/**
 * The node cannot write what it must keep on disk (its job registry) — a full or read-only data
 * directory — so it refuses the request rather than run a job it would forget (REST: 503).
 */
public final class NodeStorageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message names what could not be written and what to do
     * @param cause the I/O failure
     */
    public NodeStorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
