package io.weir.core.inventory;

/** A file that cannot be a plugin: not a jar, not an OSGi bundle, or declaring no plugin factory. The message is one line. */
public final class InvalidPluginException extends Exception {
    private static final long serialVersionUID = 1L;

    /** @param message what is wrong and what to do, one line */
    public InvalidPluginException(String message) {
        super(message);
    }
}
