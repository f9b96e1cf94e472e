package io.weir.launcher;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NodeClusterTest {

    @Test
    void withoutClusterPortTheFirstFreeLoopbackMemberIsThisNode() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
             ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int free = probe.getLocalPort();
            probe.close();
            NodeCluster c = NodeCluster.parse("127.0.0.1:" + taken.getLocalPort() + ",127.0.0.1:" + free, null);
            assertThat(c.port()).isEqualTo(free);
        }
    }

    @Test
    void aMemberWithoutPortIsAUsageError() {
        assertThatThrownBy(() -> NodeCluster.parse("127.0.0.1", 5701)).isInstanceOf(LauncherException.class)
                .hasMessageContaining("'127.0.0.1' is not host:port");
    }

    @Test
    void frameworkPropertiesNameTheMembersThePortAndTheNodeUrl() {
        NodeCluster c = new NodeCluster(List.of("127.0.0.1:5701", "127.0.0.1:5702"), 5702);
        assertThat(c.frameworkProperties(new NodeSettings(NodeSettings.HOST, 8082, Path.of("/tmp/n2"))))
                .containsEntry("weir.cluster.members", "127.0.0.1:5701,127.0.0.1:5702")
                .containsEntry("weir.cluster.port", "5702")
                .containsEntry("weir.cluster.node-url", "http://127.0.0.1:8082");
    }

    @Test
    void clusterBundlesGoBeforeTheEngineBundle() {
        List<FeatureDescriptor.BundleEntry> base = List.of(new FeatureDescriptor.BundleEntry("weir-core-1.jar", 2),
                new FeatureDescriptor.BundleEntry("weir-runtime-1.jar", 2), new FeatureDescriptor.BundleEntry("weir-rest-1.jar", 2));
        List<FeatureDescriptor.BundleEntry> all = OsgiCommandExecutor.withClusterBundles(base,
                List.of(new FeatureDescriptor.BundleEntry("hazelcast-5.7.0.jar", 2)));
        assertThat(all).extracting(FeatureDescriptor.BundleEntry::file)
                .containsExactly("weir-core-1.jar", "hazelcast-5.7.0.jar", "weir-runtime-1.jar", "weir-rest-1.jar");
    }
}
