package io.weir.rest.plugins;

/**
 * A plugin upload or removal the node refuses, with its HTTP status: 400 (not a plugin bundle, bad
 * file name), 404 (no such plugin), 409 (the file exists), 413 (too large), 415 (not a jar's media
 * type), 503 (the plugins directory cannot be written). The message is one line naming what is
 * wrong and what to do.
 */
public final class PluginRequestException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;

    /**
     * @param status the HTTP status, 400..599
     * @param message what is wrong and what to do
     * @throws IllegalArgumentException if {@code status} is not an error status
     */
    public PluginRequestException(int status, String message) {
        super(message);
        if (status < 400 || status > 599) {
            throw new IllegalArgumentException("an error status is 400..599, got " + status);
        }
        this.status = status;
    }

    /** @return the HTTP status */
    public int status() {
        return status;
    }
}
