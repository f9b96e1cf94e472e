package io.weir.benchmarks.ha;

import com.hazelcast.core.HazelcastInstance;
import io.weir.ha.hazelcast.checkpoint.HazelcastCheckpointRecoveryFactory;
import io.weir.ha.hazelcast.member.ClusterMember;
import io.weir.ha.hazelcast.member.ClusterSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Embedded Hazelcast members in this JVM forming one cluster, configured as {@code weir node --cluster} configures its
 * member ({@link ClusterSettings} defaults: heartbeat 1 s, removal after 3 s; the Weir maps with two synchronous
 * backups), for the checkpoint benchmark's {@code --high-availability=hazelcast}. Each member listens on a free
 * 127.0.0.1 port, and the cluster gets a name of its own, so it never joins another process's cluster.
 *
 * <p>The engine talks to the first member, as a node talks to its own; the others hold the backups (and, by
 * partition, some primaries), as the other nodes of a real cluster would. Not thread-safe: create, use and close
 * on one thread.
 */
public final class InProcessCluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(InProcessCluster.class);
    /** Longest wait for the members to join and every backup to be in sync, in seconds. */
    private static final long FORM_TIMEOUT_S = 120;
    private static final String HOST = "127.0.0.1";

    private final List<ClusterMember> members = new ArrayList<>();
    private final long formedInMs;

    /**
     * Starts {@code size} members and waits until they form one cluster whose backups are all in sync.
     *
     * @param size members, 1..7
     * @param classLoader sees the ha-hazelcast classes (entry processors, map values)
     * @throws IllegalArgumentException if {@code size} is out of range
     * @throws IllegalStateException if a member does not start, or the cluster is not formed and safe within
     *         {@value #FORM_TIMEOUT_S} s (the members started so far are shut down)
     * @throws InterruptedException if interrupted while waiting (the members are shut down)
     */
    public InProcessCluster(int size, ClassLoader classLoader) throws InterruptedException {
        if (size < 1 || size > 7) {
            throw new IllegalArgumentException("cluster size must be 1..7 members, got " + size);
        }
        long t0 = System.nanoTime();
        List<Integer> ports = freePorts(size);
        List<String> addresses = ports.stream().map(p -> HOST + ":" + p).toList();
        String name = "weir-benchmark-" + UUID.randomUUID();
        try {
            for (int port : ports) {
                members.add(new ClusterMember(new ClusterSettings(name, HOST, port, addresses, "",
                        ClusterSettings.DEFAULT_HEARTBEAT, ClusterSettings.DEFAULT_MAX_NO_HEARTBEAT), classLoader));
            }
            awaitFormedAndSafe(size);
        } catch (RuntimeException | InterruptedException e) {
            close();
            throw e;
        }
        formedInMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        LOG.info("Hazelcast cluster {} of {} members {} formed and safe in {} ms", name, size, addresses, formedInMs);
    }

    /** @return the member the engine uses (the first one started) */
    public HazelcastInstance member() {
        return members.get(0).get();
    }

    /** @return ms from starting the members to a formed cluster with every backup in sync */
    public long formedInMs() {
        return formedInMs;
    }

    /**
     * @param jobName a job
     * @return whether the engine's member holds the primary copy of the job's store entry (then an ADD waits only
     *         for the backups; otherwise also for a call to the primary's member)
     */
    public boolean ownsStoreEntryOf(String jobName) {
        HazelcastInstance hz = member();
        return hz.getPartitionService().getPartition(jobName).getOwner().localMember();
    }

    private void awaitFormedAndSafe(int size) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(FORM_TIMEOUT_S);
        for (ClusterMember m : members) {
            m.get(); // waits for this member to start, or throws why it did not
        }
        HazelcastInstance first = member();
        while (first.getCluster().getMembers().size() < size) {
            checkDeadline(deadline, size, first);
            Thread.sleep(100);
        }
        // partitions are assigned to members on first use; a size() touches them all, then wait for their backups
        first.getMap(HazelcastCheckpointRecoveryFactory.STORE_MAP).size();
        while (!first.getPartitionService().isClusterSafe()) {
            checkDeadline(deadline, size, first);
            Thread.sleep(100);
        }
    }

    private static void checkDeadline(long deadline, int size, HazelcastInstance first) {
        if (System.nanoTime() > deadline) {
            throw new IllegalStateException("the " + size + " in-process Hazelcast members did not form one safe cluster within "
                    + FORM_TIMEOUT_S + " s (members seen: " + first.getCluster().getMembers() + ")");
        }
    }

    private static List<Integer> freePorts(int count) {
        // all sockets held open until every port is chosen, so no port is picked twice
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                sockets.add(new ServerSocket(0, 1, InetAddress.getByName(HOST)));
            }
            return sockets.stream().map(ServerSocket::getLocalPort).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find " + count + " free ports on " + HOST, e);
        } finally {
            for (ServerSocket s : sockets) {
                try {
                    s.close();
                } catch (IOException e) {
                    LOG.debug("closing probe socket {}: {}", s, e.getMessage());
                }
            }
        }
    }

    /** Shuts every member down. Idempotent. */
    @Override
    public void close() {
        for (ClusterMember m : members) {
            try {
                m.close();
            } catch (RuntimeException e) {
                LOG.warn("Hazelcast member {}:{} did not shut down cleanly: {}", m.settings().host(), m.settings().port(),
                        e.getMessage());
            }
        }
    }
}
