package io.weir.core.plugin;

/** A plugin type cannot be resolved to exactly one factory (a {@link PluginConflict}); the message says which bundles. */
public final class PluginResolutionException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message one line naming the type, the version and the bundles */
    public PluginResolutionException(String message) {
        super(message);
    }
}
