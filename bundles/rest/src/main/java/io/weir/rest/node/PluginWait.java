package io.weir.rest.node;

/**
 * Waits until the plugin types a job spec names are installed. Right after the node starts,
 * FileInstall is still installing the plugin bundles from {@code plugins/}; a job submitted then
 * must not be refused for an "unknown type" that arrives a moment later.
 */
@FunctionalInterface
public interface PluginWait {
    /** Plugins are all there already (tests). */
    PluginWait NONE = spec -> {
    };

    /**
     * Returns when every type named by {@code spec} is installed or after an implementation-defined
     * timeout (then the parser reports the missing type). Never fails for a malformed spec.
     *
     * @param spec the job spec text
     * @throws InterruptedException if interrupted while waiting
     */
    void await(String spec) throws InterruptedException;
}
