package io.weir.console.node;

/** The node answered with an error status; {@link #getMessage()} is the node's own message (Flink's {@code errors[0]}). */
public final class NodeErrorException extends RuntimeException {
    private final int status;

    /**
     * @param status the HTTP status the node answered, &gt;= 400
     * @param message the node's message, with the node's name
     */
    public NodeErrorException(int status, String message) {
        super(message);
        this.status = status;
    }

    /** @return the node's HTTP status */
    public int status() {
        return status;
    }
}
