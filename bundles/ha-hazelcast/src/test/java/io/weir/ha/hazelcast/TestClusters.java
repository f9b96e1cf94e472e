package io.weir.ha.hazelcast;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.weir.ha.hazelcast.member.ClusterSettings;
import io.weir.ha.hazelcast.member.MemberConfigs;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Starts in-JVM members on free loopback ports with the production configuration. */
public final class TestClusters {
    private TestClusters() {
    }

    /** @return {@code n} free loopback ports */
    public static List<Integer> freePorts(int n) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                sockets.add(s);
                ports.add(s.getLocalPort());
            }
            return ports;
        } finally {
            for (ServerSocket s : sockets) {
                s.close();
            }
        }
    }

    /** @return settings of a member listening on {@code port} in a cluster of {@code ports} */
    public static ClusterSettings settings(String name, List<Integer> ports, int port) {
        return new ClusterSettings(name, "127.0.0.1", port, ports.stream().map(p -> "127.0.0.1:" + p).toList(),
                "http://127.0.0.1:" + (port + 1000), 1, 3);
    }

    /** Starts members on every port of {@code ports} at once and waits until all see each other. */
    public static List<HazelcastInstance> start(String name, List<Integer> ports) {
        List<CompletableFuture<HazelcastInstance>> starting = new ArrayList<>();
        for (int port : ports) {
            starting.add(CompletableFuture.supplyAsync(() -> Hazelcast.newHazelcastInstance(
                    MemberConfigs.memberConfig(settings(name, ports, port), TestClusters.class.getClassLoader()))));
        }
        List<HazelcastInstance> members = starting.stream().map(CompletableFuture::join).toList();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60))
                .until(() -> members.stream().allMatch(m -> m.getCluster().getMembers().size() == ports.size()));
        return members;
    }

    /** Terminates every member still running (abruptly: tests end fast). */
    public static void terminate(List<HazelcastInstance> members) {
        for (HazelcastInstance m : members) {
            if (m.getLifecycleService().isRunning()) {
                m.getLifecycleService().terminate();
            }
        }
    }
}
