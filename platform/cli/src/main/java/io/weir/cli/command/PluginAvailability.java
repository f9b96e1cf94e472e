package io.weir.cli.command;

import java.time.Duration;
import java.util.Set;

/**
 * Waits for plugin types to be installed. In OSGi plugins arrive asynchronously (FileInstall picks
 * them up from {@code plugins/} after the framework started), so a job submitted right after boot
 * must wait for them; outside OSGi (tests) everything is there from the start.
 */
@FunctionalInterface
public interface PluginAvailability {
    /** Plugins are all there already: returns at once. */
    PluginAvailability IMMEDIATE = (types, timeout) -> {
    };

    /**
     * Returns when every type in {@code types} is installed, when no more plugins can arrive (every
     * plugin file has been installed and started), or after {@code timeout}, whichever is first.
     * It does not fail for missing types: the job parser reports them, naming the field.
     *
     * @param types plugin type names the job uses
     * @param timeout the longest wait
     * @throws InterruptedException if interrupted while waiting (Ctrl-C)
     */
    void await(Set<String> types, Duration timeout) throws InterruptedException;
}
