package io.weir.cli;

import io.weir.core.config.EngineOptions;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;
import org.osgi.service.component.runtime.dto.ReferenceDTO;
import org.osgi.service.component.runtime.dto.UnsatisfiedReferenceDTO;
import org.osgi.util.tracker.ServiceTracker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Gets a service the commands need (the Engine, the PluginRegistry) from the OSGi framework, waiting for it while the
 * runtime starts, and holds it while the command runs; if it does not come, explains why from Declarative Services' own view (which
 * components are unsatisfied and which references they lack) and which bundles are not active. (The services the engine
 * itself is assembled from are {@code io.weir.runtime.engine.EngineServices}.)
 *
 * <p>Thread-safe: every call opens its own tracker.
 */
final class FrameworkServices {
    private final BundleContext context;
    private final ServiceComponentRuntime scr;

    FrameworkServices(BundleContext context, ServiceComponentRuntime scr) {
        this.context = context;
        this.scr = scr;
    }

    /**
     * Waits for a service and keeps it tracked (and so in use) until the returned handle is closed:
     * the engine's component may be a delayed DS component, which SCR disposes as soon as nobody
     * uses its service, taking its installed plugins and running jobs with it.
     *
     * @param type the service interface
     * @param timeout the longest wait
     * @return the tracked service; close it when the command is done
     * @throws IllegalStateException with a diagnosis if it is not registered within {@code timeout}
     * @throws InterruptedException if interrupted while waiting
     */
    <T> Tracked<T> await(Class<T> type, Duration timeout) throws InterruptedException {
        ServiceTracker<T, T> tracker = new ServiceTracker<>(context, type, null);
        tracker.open();
        boolean ok = false;
        try {
            if (tracker.waitForService(timeout.toMillis()) == null) {
                throw new IllegalStateException("no " + type.getName() + " service after " + timeout.toMillis()
                        + " ms; " + diagnosis());
            }
            ok = true;
            return new Tracked<>(type, tracker);
        } finally {
            if (!ok) {
                tracker.close();
            }
        }
    }

    /**
     * A service held for the duration of a command. Thread-safe.
     *
     * @param <T> the service type
     */
    static final class Tracked<T> implements AutoCloseable {
        private final Class<T> type;
        private final ServiceTracker<T, T> tracker;

        private Tracked(Class<T> type, ServiceTracker<T, T> tracker) {
            this.type = type;
            this.tracker = tracker;
        }

        /**
         * @return the current service (the highest-ranked one if it was replaced meanwhile)
         * @throws IllegalStateException if it was unregistered (its bundle stopped)
         */
        T get() {
            T service = tracker.getService();
            if (service == null) {
                throw new IllegalStateException("the " + type.getName() + " service went away (was its bundle stopped?)");
            }
            return service;
        }

        @Override
        public void close() {
            tracker.close();
        }
    }

    /** @return unsatisfied components with their missing references, and bundles that are not active */
    String diagnosis() {
        List<String> problems = new ArrayList<>();
        for (ComponentDescriptionDTO d : scr.getComponentDescriptionDTOs()) {
            java.util.Collection<ComponentConfigurationDTO> configurations = scr.getComponentConfigurationDTOs(d);
            if (configurations.isEmpty() && "require".equals(d.configurationPolicy) && d.defaultEnabled) {
                // a required configuration that does not exist: SCR creates no component configuration at all
                problems.add("component " + d.name + " needs configuration " + String.join(",", d.configurationPid)
                        + configurationHint(d.configurationPid));
            }
            for (ComponentConfigurationDTO c : configurations) {
                if (c.state == ComponentConfigurationDTO.UNSATISFIED_REFERENCE) {
                    List<String> refs = new ArrayList<>();
                    for (UnsatisfiedReferenceDTO u : c.unsatisfiedReferences) {
                        refs.add(u.name + " (" + interfaceOf(d, u.name) + (u.target == null ? "" : " " + u.target) + ")");
                    }
                    problems.add("component " + d.name + " waits for " + refs);
                } else if (c.state == ComponentConfigurationDTO.FAILED_ACTIVATION) {
                    // the DTO's failure is a whole stack trace; its first line names the exception and its message
                    problems.add("component " + d.name + " failed to activate: " + firstLine(c.failure));
                } else if (c.state == ComponentConfigurationDTO.UNSATISFIED_CONFIGURATION) {
                    problems.add("component " + d.name + " needs configuration " + String.join(",", d.configurationPid)
                            + configurationHint(d.configurationPid));
                }
            }
        }
        for (Bundle b : context.getBundles()) {
            boolean fragment = b.getHeaders("").get(Constants.FRAGMENT_HOST) != null;
            if (!fragment && b.getState() != Bundle.ACTIVE) {
                problems.add("bundle " + b.getSymbolicName() + " " + b.getVersion() + " is " + stateName(b.getState()));
            }
        }
        return problems.isEmpty()
                ? "every bundle is active and no component is unsatisfied: is the runtime bundle (io.weir.runtime) in the feature?"
                : String.join("; ", problems);
    }

    /** @return the first line of {@code text} (null stays "null") */
    static String firstLine(String text) {
        if (text == null) {
            return "null";
        }
        int end = text.indexOf('\n');
        return (end < 0 ? text : text.substring(0, end)).strip();
    }

    /** @return where the distribution keeps a configuration PID's file, for the engine's; else "" */
    private static String configurationHint(String[] pids) {
        for (String pid : pids) {
            if (EngineOptions.PID.equals(pid)) {
                return " (the engine's configuration: " + EngineOptions.FILE + " under the distribution's root is missing)";
            }
        }
        return "";
    }

    private static String interfaceOf(ComponentDescriptionDTO d, String reference) {
        for (ReferenceDTO r : d.references) {
            if (r.name.equals(reference)) {
                return r.interfaceName;
            }
        }
        return "?";
    }

    private static String stateName(int state) {
        return switch (state) {
            case Bundle.INSTALLED -> "INSTALLED (not resolved: a required package or capability is missing)";
            case Bundle.RESOLVED -> "RESOLVED (not started)";
            case Bundle.STARTING -> "STARTING";
            case Bundle.STOPPING -> "STOPPING";
            case Bundle.UNINSTALLED -> "UNINSTALLED";
            default -> String.valueOf(state);
        };
    }
}
