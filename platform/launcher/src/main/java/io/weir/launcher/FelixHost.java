package io.weir.launcher;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;
import org.osgi.framework.startlevel.BundleStartLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The embedded Apache Felix framework of one {@code weir} process: boots it with the bundles of a
 * {@link FeatureDescriptor}, hot-deploys {@code <home>/plugins} through FileInstall, which also
 * delivers the engine's configuration from {@code <home>/conf/engine/*.cfg} to ConfigurationAdmin,
 * and stops it.
 *
 * <p>Framework storage and FileInstall's temporary files are in a fresh {@link ProcessWorkDirectory}
 * per process ({@code <home>/work/run-<pid>}, deleted on {@link #stop()}, and on a later start when the
 * process was killed), so several {@code weir} commands can run at once and no state leaks between runs;
 * FileInstall reinstalls the plugins on every start (~200 ms).
 *
 * <p>Configuration, besides the feature's {@code config}: storage (clean on first init), the
 * system bundle re-exporting SLF4J from the class path (so bundles log through slf4j-simple, see
 * {@link #slf4jPackages()}), {@code felix.fileinstall.dir} (the two directories, comma-separated), and {@code gosh.args=--nointeractive}
 * unless an interactive shell is wanted (Gogo would otherwise stop the framework when stdin ends).
 *
 * <p>Thread-safe: {@link #stop()} may be called from the main thread and the Ctrl-C hook at once.
 */
public final class FelixHost {
    private static final Logger LOG = LoggerFactory.getLogger(FelixHost.class);
    /** How long {@link #stop()} waits for starting bundles to finish before stopping, in ms. */
    private static final long SETTLE_TIMEOUT_MS = 5_000;
    /** How long {@link #stop()} waits for the framework to stop, in ms. */
    static final long STOP_TIMEOUT_MS = 10_000;

    private final Framework framework;
    private final ProcessWorkDirectory work;
    /** Errors Felix reported while starting bundles; appended by Felix's event thread. */
    private final List<String> startErrors = new CopyOnWriteArrayList<>();
    /** Guarded by {@code this}. */
    private boolean stopped;

    private FelixHost(Framework framework, ProcessWorkDirectory work) {
        this.framework = framework;
        this.work = work;
    }

    /**
     * Boots the framework and starts every bundle of {@code feature}; returns once the framework has
     * reached its beginning start level (bundles ACTIVE; plugins may still be arriving).
     *
     * @param home the distribution's root ({@code bundles/}, {@code plugins/})
     * @param feature the bundles and configuration
     * @param interactiveShell whether Gogo reads commands from stdin
     * @return the running framework
     * @throws LauncherException (exit 1) if a bundle is missing or cannot be installed, or Felix fails to start
     */
    public static FelixHost start(Path home, FeatureDescriptor feature, boolean interactiveShell) {
        long t0 = System.nanoTime();
        List<Path> jars = feature.resolve(home.resolve("bundles"));
        ProcessWorkDirectory work = ProcessWorkDirectory.create(home);
        Map<String, String> cfg = new HashMap<>(feature.config());
        cfg.put(Constants.FRAMEWORK_STORAGE, work.frameworkStorage().toString());
        cfg.put("felix.fileinstall.tmpdir", work.fileInstallTemp().toString());
        cfg.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        cfg.put(Constants.FRAMEWORK_SYSTEMPACKAGES_EXTRA, slf4jPackages());
        // plugin bundles, and the engine's configuration (conf/engine/io.weir.engine.cfg, into ConfigurationAdmin)
        cfg.put("felix.fileinstall.dir", home.resolve("plugins") + "," + home.resolve("conf").resolve("engine"));
        if (interactiveShell) {
            cfg.remove("gosh.args");
        } else {
            cfg.put("gosh.args", "--nointeractive");
        }
        FrameworkFactory factory = ServiceLoader.load(FrameworkFactory.class).findFirst()
                .orElseThrow(() -> new LauncherException(ExitCodes.FAILED, "no OSGi FrameworkFactory on the class path: is lib/ complete?"));
        Framework fw = factory.newFramework(cfg);
        FelixHost host = new FelixHost(fw, work);
        try {
            fw.init();
            BundleContext ctx = fw.getBundleContext();
            ctx.addFrameworkListener(host::onFrameworkEvent);
            List<Bundle> installed = new ArrayList<>();
            for (int i = 0; i < jars.size(); i++) {
                Path jar = jars.get(i);
                Bundle b;
                try {
                    // "reference:" makes Felix read the jar in place instead of copying it into the cache
                    b = ctx.installBundle("reference:" + jar.toUri());
                } catch (BundleException e) {
                    throw new LauncherException(ExitCodes.FAILED, "cannot install bundle " + jar + ": " + e.getMessage(), e);
                }
                b.adapt(BundleStartLevel.class).setStartLevel(feature.bundles().get(i).startLevel());
                installed.add(b);
            }
            for (Bundle b : installed) {
                if (!isFragment(b)) {
                    b.start(); // persistent mark: starts when the framework reaches the bundle's level
                }
            }
            long tInstalled = System.nanoTime();
            fw.start(); // raises the start level to the beginning level, starting bundles on the way
            long tStarted = System.nanoTime();
            for (Bundle b : installed) {
                if (!isFragment(b) && b.getState() != Bundle.ACTIVE) {
                    LOG.warn("Bundle {} {} is not active (state {})", b.getSymbolicName(), b.getVersion(), b.getState());
                }
            }
            LOG.debug("Felix {} up: {} bundles installed in {} ms, started in {} ms", fw.getVersion(), installed.size(),
                    (tInstalled - t0) / 1_000_000, (tStarted - tInstalled) / 1_000_000);
            return host;
        } catch (BundleException | RuntimeException e) {
            host.stop();
            if (e instanceof LauncherException le) {
                throw le;
            }
            throw new LauncherException(ExitCodes.FAILED, "cannot start the OSGi framework: " + e.getMessage(), e);
        }
    }

    /** @return the system bundle's context, to find services registered by bundles */
    public BundleContext context() {
        return framework.getBundleContext();
    }

    /** @return errors Felix reported while starting bundles (e.g. unresolved requirements), in order */
    public List<String> startErrors() {
        return List.copyOf(startErrors);
    }

    /**
     * Blocks until the framework stops by itself (e.g. {@code stop 0} or end of input in the
     * interactive shell).
     *
     * @throws InterruptedException if interrupted while waiting
     */
    public void awaitStopped() throws InterruptedException {
        framework.waitForStop(0);
    }

    /** Stops the framework (waits up to {@value #STOP_TIMEOUT_MS} ms) and deletes its work directory. Idempotent. */
    public synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        long t0 = System.nanoTime();
        try {
            awaitNoBundleStarting();
            framework.stop();
            FrameworkEvent ev = framework.waitForStop(STOP_TIMEOUT_MS);
            if (ev.getType() == FrameworkEvent.WAIT_TIMEDOUT) {
                LOG.warn("OSGi framework did not stop within {} ms", STOP_TIMEOUT_MS);
            }
        } catch (BundleException e) {
            LOG.warn("Stopping the OSGi framework failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("Interrupted while stopping the OSGi framework");
        }
        work.delete();
        LOG.debug("Felix stopped in {} ms", (System.nanoTime() - t0) / 1_000_000);
    }

    /**
     * FileInstall starts plugin bundles asynchronously; a command that ends quickly (a bad job file) can
     * reach {@link #stop()} while one is still STARTING, and Felix then fails to stop it with an error on
     * stdout. So stop stops FileInstall first (no new starts), then waits, up to
     * {@value #SETTLE_TIMEOUT_MS} ms, until no bundle is starting.
     */
    private void awaitNoBundleStarting() throws InterruptedException {
        // first FileInstall itself, so that it starts no further plugin bundle while we wait
        for (Bundle b : framework.getBundleContext().getBundles()) {
            if ("org.apache.felix.fileinstall".equals(b.getSymbolicName()) && b.getState() == Bundle.ACTIVE) {
                try {
                    b.stop();
                } catch (BundleException | IllegalStateException e) {
                    LOG.debug("Stopping FileInstall before the framework failed: {}", e.toString());
                }
            }
        }
        long deadline = System.nanoTime() + SETTLE_TIMEOUT_MS * 1_000_000L;
        while (System.nanoTime() < deadline) {
            boolean starting = false;
            for (Bundle b : framework.getBundleContext().getBundles()) {
                starting |= b.getState() == Bundle.STARTING;
            }
            if (!starting) {
                return;
            }
            Thread.sleep(10);
        }
        LOG.debug("Stopping the OSGi framework with bundles still starting after {} ms", SETTLE_TIMEOUT_MS);
    }

    private void onFrameworkEvent(FrameworkEvent event) {
        if (event.getType() == FrameworkEvent.ERROR) {
            Bundle b = event.getBundle();
            String msg = (b == null ? "framework" : b.getSymbolicName() + " " + b.getVersion()) + ": "
                    + (event.getThrowable() == null ? "error" : event.getThrowable().getMessage());
            startErrors.add(msg);
            LOG.warn("OSGi error in {}", msg);
        }
    }

    private static boolean isFragment(Bundle b) {
        return b.getHeaders("").get(Constants.FRAGMENT_HOST) != null;
    }

    /**
     * The system bundle re-exports SLF4J from the launcher's class path at the jar's real version
     * (read from slf4j-api's manifest, so upgrading it needs no code change), plus the 1.7.36 exports
     * slf4j-api 2.x declares itself, for bundles built against 1.7.
     *
     * @return the value of {@code org.osgi.framework.system.packages.extra}
     * @throws LauncherException if slf4j-api on the class path carries no version
     */
    static String slf4jPackages() {
        String v = org.slf4j.LoggerFactory.class.getPackage().getImplementationVersion();
        if (v == null) {
            throw new LauncherException(ExitCodes.FAILED, "slf4j-api in lib/ has no Implementation-Version in its manifest");
        }
        return String.join(",",
                "org.slf4j;version=" + v,
                "org.slf4j.event;version=" + v,
                "org.slf4j.helpers;version=" + v,
                "org.slf4j.spi;version=" + v,
                "org.slf4j;version=1.7.36",
                "org.slf4j.helpers;version=1.7.36");
    }
}
