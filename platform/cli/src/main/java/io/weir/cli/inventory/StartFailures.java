package io.weir.cli.inventory;

import org.osgi.framework.BundleEvent;
import org.osgi.framework.SynchronousBundleListener;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongPredicate;

/**
 * Remembers bundles whose activator threw: the framework fires STARTING and then, instead of
 * STARTED, STOPPING/STOPPED. Forgotten when the bundle starts, is updated or uninstalled.
 *
 * <p>Thread-safe: events arrive on whichever thread starts or stops a bundle.
 */
public final class StartFailures implements SynchronousBundleListener, LongPredicate {
    /** Bundles between STARTING and STARTED. */
    private final Set<Long> starting = ConcurrentHashMap.newKeySet();
    private final Set<Long> failed = ConcurrentHashMap.newKeySet();

    @Override
    public void bundleChanged(BundleEvent event) {
        long id = event.getBundle().getBundleId();
        switch (event.getType()) {
            case BundleEvent.STARTING -> starting.add(id);
            case BundleEvent.STARTED, BundleEvent.UPDATED, BundleEvent.UNINSTALLED, BundleEvent.UNRESOLVED -> {
                starting.remove(id);
                failed.remove(id);
            }
            case BundleEvent.STOPPED -> {
                if (starting.remove(id)) {
                    failed.add(id);
                }
            }
            default -> {
                // INSTALLED, RESOLVED, STOPPING, LAZY_ACTIVATION: nothing to remember
            }
        }
    }

    /** @return whether bundle {@code bundleId} failed in its activator since it was last installed, updated or started */
    @Override
    public boolean test(long bundleId) {
        return failed.contains(bundleId);
    }
}
