package io.weir.launcher;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * Checks around a node's start: that its port is free before anything boots, and that its REST API
 * answers ({@code GET /overview} 200) once the framework is up.
 *
 * <p>Not thread-safe: one instance per start, used by the main thread.
 */
final class NodeReadiness {
    /** Pause between two probes of the REST API, ms. */
    static final long PROBE_INTERVAL_MS = 100;

    private final NodeSettings settings;
    private final long timeoutMs;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /**
     * @param settings where the node listens
     * @param timeoutMs the longest wait for the first 200
     */
    NodeReadiness(NodeSettings settings, long timeoutMs) {
        this.settings = settings;
        this.timeoutMs = timeoutMs;
    }

    /**
     * Binds the port for a moment to see that it is free: a second node on the same port must fail at
     * once with one line, not after booting 50 bundles into a Jetty that cannot bind.
     *
     * @throws LauncherException (exit 1) naming the address if something listens there
     */
    static void requirePortFree(NodeSettings settings) {
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(settings.host(), settings.port()));
        } catch (BindException e) {
            throw new LauncherException(ExitCodes.FAILED, "port " + settings.port() + " on " + settings.host()
                    + " is in use (another weir node or program listens there); stop it or start with --port N");
        } catch (IOException e) {
            throw new LauncherException(ExitCodes.FAILED, "cannot listen on " + settings.host() + ":" + settings.port() + ": " + e.getMessage());
        }
    }

    /**
     * @param startErrors errors Felix reported while starting bundles, quoted if the API never answers
     * @throws LauncherException (exit 1) if the API does not answer 200 within the timeout
     * @throws InterruptedException if interrupted (Ctrl-C) while waiting
     */
    void await(Supplier<List<String>> startErrors) throws InterruptedException {
        HttpRequest probe = HttpRequest.newBuilder(settings.url().resolve("/overview")).timeout(Duration.ofSeconds(2)).GET().build();
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<Void> r = http.send(probe, HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() == 200) {
                    return;
                }
                last = "HTTP " + r.statusCode();
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(PROBE_INTERVAL_MS);
        }
        List<String> errors = startErrors.get();
        throw new LauncherException(ExitCodes.FAILED, "the node's REST API did not answer on " + settings.url() + " within "
                + timeoutMs + " ms (last: " + last + ")" + (errors.isEmpty() ? "" : "; bundle errors: " + String.join("; ", errors)));
    }
}
