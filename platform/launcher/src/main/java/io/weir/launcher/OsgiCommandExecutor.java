package io.weir.launcher;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintStream;
import java.nio.file.Path;
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

    @Override
    public int execute(Map<String, Object> request, String featureName, boolean interactiveShell) {
        long t0 = System.nanoTime();
        Path featureFile = home.resolve("conf").resolve("features").resolve(featureName + ".json");
        FeatureDescriptor feature = FeatureDescriptor.read(featureFile);
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
            int rc = ExitCodes.OK;
            if (request != null) {
                rc = CommandBridge.call(host.context(), request, COMMAND_SERVICE_WAIT_MS, host.startErrors());
            }
            if (interactiveShell && !shuttingDown) {
                out.println("Gogo shell: try 'weir:plugins', 'weir:run <job.json>', 'lb', 'scr:list'; 'stop 0' or end of input exits.");
                host.awaitStopped();
            }
            return rc;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCodes.INTERRUPTED;
        } finally {
            // After Ctrl-C the command thread still carries its interrupt; clear it so stopping the
            // framework waits for the bundles instead of giving up at once.
            boolean interrupted = Thread.interrupted();
            host.stop();
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
