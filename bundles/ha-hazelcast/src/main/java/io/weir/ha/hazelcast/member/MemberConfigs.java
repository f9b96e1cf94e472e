package io.weir.ha.hazelcast.member;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MergePolicyConfig;
import com.hazelcast.config.NetworkConfig;
import io.weir.ha.hazelcast.checkpoint.HazelcastCheckpointRecoveryFactory;
import io.weir.ha.hazelcast.jobs.ClusterJobStore;

/**
 * Builds the embedded member's {@link Config} from {@link ClusterSettings}: TCP/IP join with each member listed,
 * multicast and auto-detection off, bound to one interface, failure detection tuned, and the Weir maps with two
 * synchronous backups (one per other member of a 3-node cluster), merged after a split by {@link FencedMergePolicy}.
 */
public final class MemberConfigs {
    /** Synchronous backups of every Weir map. */
    public static final int BACKUPS = 2;
    /** Ms an operation waits for its answer before failing (Hazelcast's default is 60 s: a renewal must fail fast). */
    static final int CALL_TIMEOUT_MS = 5_000;

    private MemberConfigs() {
    }

    /**
     * @param settings the node's cluster settings
     * @param classLoader sees this bundle's entry processors and map values (in OSGi: this bundle's loader)
     * @return the member configuration
     */
    public static Config memberConfig(ClusterSettings settings, ClassLoader classLoader) {
        Config config = new Config();
        config.setClusterName(settings.name());
        config.setInstanceName("weir-" + settings.name() + "-" + settings.port());
        config.setClassLoader(classLoader);
        config.setProperty("hazelcast.logging.type", "slf4j");
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.socket.bind.any", "false");
        config.setProperty("hazelcast.heartbeat.interval.seconds", String.valueOf(settings.heartbeatSeconds()));
        config.setProperty("hazelcast.max.no.heartbeat.seconds", String.valueOf(settings.maxNoHeartbeatSeconds()));
        config.setProperty("hazelcast.operation.call.timeout.millis", String.valueOf(CALL_TIMEOUT_MS));
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        // a small cluster merges again quickly after a split
        config.setProperty("hazelcast.merge.first.run.delay.seconds", "5");
        config.setProperty("hazelcast.merge.next.run.delay.seconds", "5");
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(settings.port()).setPortAutoIncrement(false);
        network.setPublicAddress(settings.host() + ":" + settings.port());
        network.getInterfaces().setEnabled(true).addInterface(settings.host());
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).setMembers(settings.members());
        config.getMemberAttributeConfig().setAttribute(ClusterMember.URL_ATTRIBUTE, settings.nodeUrl());
        for (String map : new String[] {HazelcastCheckpointRecoveryFactory.COUNTER_MAP, HazelcastCheckpointRecoveryFactory.STORE_MAP,
                ClusterJobStore.MAP}) {
            config.addMapConfig(new MapConfig(map).setBackupCount(BACKUPS).setAsyncBackupCount(0).setReadBackupData(false)
                    .setMergePolicyConfig(new MergePolicyConfig(FencedMergePolicy.class.getName(), MergePolicyConfig.DEFAULT_BATCH_SIZE)));
        }
        return config;
    }
}
