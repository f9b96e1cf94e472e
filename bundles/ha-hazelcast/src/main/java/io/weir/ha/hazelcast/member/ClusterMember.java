package io.weir.ha.hazelcast.member;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * This node's embedded Hazelcast member, started on a thread of its own (a member takes 1.3–7 s to start and join;
 * SCR's activation thread must not wait for it). {@link #get()} waits for it. Thread-safe.
 */
public final class ClusterMember implements Supplier<HazelcastInstance>, AutoCloseable {
    /** Member attribute holding the node's REST URL. */
    public static final String URL_ATTRIBUTE = "weir.url";
    /** Longest wait in {@link #get()} for the member to come up, in seconds. */
    static final int START_WAIT_SECONDS = 120;

    private static final Logger LOG = LoggerFactory.getLogger(ClusterMember.class);

    private final ClusterSettings settings;
    private final CompletableFuture<HazelcastInstance> instance = new CompletableFuture<>();

    /**
     * Starts the member in the background.
     *
     * @param settings the node's cluster settings
     * @param classLoader sees this bundle's classes (entry processors, map values)
     */
    public ClusterMember(ClusterSettings settings, ClassLoader classLoader) {
        this.settings = settings;
        Thread starter = new Thread(() -> {
            long t0 = System.nanoTime();
            try {
                HazelcastInstance hz = Hazelcast.newHazelcastInstance(MemberConfigs.memberConfig(settings, classLoader));
                LOG.info("Cluster member {}:{} of cluster '{}' up in {} ms; members {}", settings.host(), settings.port(),
                        settings.name(), (System.nanoTime() - t0) / 1_000_000, hz.getCluster().getMembers());
                if (!instance.complete(hz)) {
                    hz.shutdown(); // closed while starting
                }
            } catch (RuntimeException e) {
                LOG.error("Cluster member {}:{} did not start: {}", settings.host(), settings.port(), e.getMessage(), e);
                instance.completeExceptionally(e);
            }
        }, "weir-cluster-member-start");
        starter.setDaemon(true);
        starter.start();
    }

    /** @return the settings it was started with */
    public ClusterSettings settings() {
        return settings;
    }

    /**
     * @return the running member, waiting up to {@value #START_WAIT_SECONDS} s for it to start
     * @throws IllegalStateException if it failed to start, was closed, or did not start in time
     */
    @Override
    public HazelcastInstance get() {
        try {
            return instance.get(START_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the cluster member to start", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the cluster member " + settings.host() + ":" + settings.port() + " did not start: "
                    + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the cluster member " + settings.host() + ":" + settings.port() + " did not start within "
                    + START_WAIT_SECONDS + " s (are the other members in " + ClusterSettings.MEMBERS + " reachable?)", e);
        }
    }

    /** @return the member once it has started */
    public CompletableFuture<HazelcastInstance> started() {
        return instance;
    }

    /** Leaves the cluster (if the member started) and stops it. Idempotent. */
    @Override
    public void close() {
        if (!instance.completeExceptionally(new IllegalStateException("the cluster member was closed"))
                && !instance.isCompletedExceptionally()) {
            HazelcastInstance hz = instance.join();
            if (hz.getLifecycleService().isRunning()) {
                hz.shutdown();
            }
        }
    }
}
