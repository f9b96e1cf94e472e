package io.weir.rest.node;

/**
 * A path in a request lies outside the directory the node allows for it (REST: 403), e.g. a
 * savepoint target outside the node's savepoint directory.
 */
public final class PathNotAllowedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message names the path and the allowed directory */
    public PathNotAllowedException(String message) {
        super(message);
    }
}
