package io.weir.launcher;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Boots Felix with a feature, hands the command to the CLI bundle ({@link CommandBridge}) and
 * stops the framework afterwards.
 *
 * <p>Ctrl-C: a shutdown hook interrupts the thread running the command (the CLI then cancels the
 * job and prints what it has), waits up to {@value #HOOK_WAIT_MS} ms for it to return, and stops
 * the framework. {@link #shuttingDown()} then tells {@link Main} not to call {@code System.exit}
 * (which would block behind the running hooks).
 *
 * <p>One instance per process; {@link #execute} is called once, on the main thread.
 */
public final class OsgiCommandExecutor implements CommandExecutor {
    private static final Logger LOG = LoggerFactory.getLogger(OsgiCommandExecutor.class);
    /** Longest wait for the CLI bundle's entry point after the framework started, in ms. */
    static final long COMMAND_SERVICE_WAIT_MS = 15_000;
    /** How long the Ctrl-C hook waits for the command to wind down, in ms. */
    static final long HOOK_WAIT_MS = 15_000;
    /** The feature {@code weir node} boots ({@code conf/features/node.json}). */
    static final String NODE_FEATURE = "node";
    /** Longest wait for the node's REST API to answer after the framework started, in ms. */
    static final long NODE_READY_TIMEOUT_MS = 60_000;

    private final Path home;
    private final PrintStream out;
    /** Set by the shutdown hook thread, read by the main thread. */
    private volatile boolean shuttingDown;

    /**
     * @param home the distribution's root directory
     * @param out where to print the shell's greeting
     */
    public OsgiCommandExecutor(Path home, PrintStream out) {
        this.home = home;
        this.out = out;
    }

    /** What runs on the main thread while the framework is up; returns the exit code. */
    @FunctionalInterface
    private interface Body {
        int run(FelixHost host) throws InterruptedException;
    }

    @Override
    public int execute(Map<String, Object> request, String featureName, boolean interactiveShell) {
        return boot(readFeature(featureName), interactiveShell, () -> { }, host -> {
            int rc = ExitCodes.OK;
            if (request != null) {
                rc = CommandBridge.call(host.context(), request, COMMAND_SERVICE_WAIT_MS, host.startErrors());
            }
            if (interactiveShell && !shuttingDown) {
                out.println("Gogo shell: try 'weir:plugins', 'weir:run <job.json>', 'lb', 'scr:list'; 'stop 0' or end of input exits.");
                host.awaitStopped();
            }
            return rc;
        });
    }

    /**
     * Boots feature {@value #NODE_FEATURE} with the node's settings, waits until the REST API answers,
     * prints one line saying where, and keeps running until the process is stopped.
     */
    @Override
    public int runNode(NodeSettings settings) {
        return runNode(settings, (NodeCluster) null);
    }

    /**
     * {@link #runNode(NodeSettings)} with the bundles of feature {@value NodeCluster#FEATURE} added before the engine's
     * bundle (so the engine binds the cluster's checkpoint recovery factory) and the cluster's framework properties.
     */
    @Override
    public int runNode(NodeSettings settings, NodeCluster cluster) {
        try {
            java.nio.file.Files.createDirectories(settings.dataDir());
        } catch (java.io.IOException e) {
            throw new LauncherException(ExitCodes.FAILED, "cannot create the node's data directory " + settings.dataDir() + ": " + e);
        }
        // before the port check: a second node on the same data directory is told which node holds it
        NodePidFile pidFile = NodePidFile.claim(settings.dataDir(), settings.url());
        Runnable release = () -> NodePidFile.release(settings.dataDir(), pidFile.pid());
        try {
            NodeReadiness.requirePortFree(settings);
            FeatureDescriptor base = readFeature(NODE_FEATURE);
            Map<String, String> config = new java.util.LinkedHashMap<>(base.config());
            config.putAll(settings.frameworkProperties());
            List<FeatureDescriptor.BundleEntry> bundles = base.bundles();
            if (cluster != null) {
                config.putAll(cluster.frameworkProperties(settings));
                bundles = withClusterBundles(bundles, readFeature(NodeCluster.FEATURE).bundles());
            }
            FeatureDescriptor feature = new FeatureDescriptor(base.name(), base.description(), bundles, config);
            return boot(feature, false, release, host -> {
                new NodeReadiness(settings, NODE_READY_TIMEOUT_MS).await(host::startErrors);
                out.println(NodeService.LISTENING + settings.url() + " (pid " + pidFile.pid() + ", data directory "
                        + settings.dataDir() + ", admin token in " + settings.tokenFile() + "); Ctrl-C stops it");
                out.flush();
                host.awaitStopped(); // until the Ctrl-C/SIGTERM hook interrupts this thread
                return ExitCodes.OK;
            });
        } catch (RuntimeException e) {
            release.run(); // the framework never came up (boot releases it itself once it did)
            throw e;
        }
    }

    /** @return {@code base} with {@code cluster} inserted before the engine's bundle (weir-runtime), else at the end */
    static List<FeatureDescriptor.BundleEntry> withClusterBundles(List<FeatureDescriptor.BundleEntry> base,
            List<FeatureDescriptor.BundleEntry> cluster) {
        List<FeatureDescriptor.BundleEntry> all = new java.util.ArrayList<>(base);
        int runtime = 0;
        while (runtime < all.size() && !all.get(runtime).file().startsWith("weir-runtime-")) {
            runtime++;
        }
        all.addAll(runtime, cluster);
        return all;
    }

    private FeatureDescriptor readFeature(String featureName) {
        Path featureFile = home.resolve("conf").resolve("features").resolve(featureName + ".json");
        return FeatureDescriptor.read(featureFile);
    }

    /**
     * @param afterStop runs once the framework has stopped, before the Ctrl-C hook may let the JVM end (the node
     *        removes its pid file there, so that the file disappears only when the node is really down)
     */
    private int boot(FeatureDescriptor feature, boolean interactiveShell, Runnable afterStop, Body body) {
        long t0 = System.nanoTime();
        FelixHost host = FelixHost.start(home, feature, interactiveShell);
        LOG.debug("Framework up in {} ms", (System.nanoTime() - t0) / 1_000_000);

        Thread main = Thread.currentThread();
        CountDownLatch commandDone = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            shuttingDown = true;
            main.interrupt();
            try {
                if (!commandDone.await(HOOK_WAIT_MS, TimeUnit.MILLISECONDS)) {
                    LOG.warn("Command did not finish within {} ms of Ctrl-C; stopping the framework anyway", HOOK_WAIT_MS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            host.stop();
        }, "weir-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return body.run(host);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return shuttingDown && NODE_FEATURE.equals(feature.name()) ? ExitCodes.OK : ExitCodes.INTERRUPTED;
        } finally {
            // After Ctrl-C the command thread still carries its interrupt; clear it so stopping the
            // framework waits for the bundles instead of giving up at once.
            boolean interrupted = Thread.interrupted();
            host.stop();
            afterStop.run();
            commandDone.countDown();
            if (interrupted && !shuttingDown) {
                Thread.currentThread().interrupt();
            }
            if (!shuttingDown) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // the JVM began shutting down after all: the hook runs and finds the work done
                }
            }
            LOG.debug("Command done {} ms after launch", (System.nanoTime() - t0) / 1_000_000);
        }
    }

    /** @return whether the JVM is shutting down (Ctrl-C): the caller must not call {@code System.exit} */
    public boolean shuttingDown() {
        return shuttingDown;
    }
}
