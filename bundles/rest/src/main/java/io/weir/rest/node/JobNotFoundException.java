package io.weir.rest.node;

/** No job of the node has the id or name asked for (REST: 404). */
public final class JobNotFoundException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message names the id or name asked for and what to do */
    public JobNotFoundException(String message) {
        super(message);
    }
}
