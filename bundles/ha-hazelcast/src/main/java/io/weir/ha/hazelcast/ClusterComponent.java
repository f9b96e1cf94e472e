package io.weir.ha.hazelcast;

import io.weir.core.ha.CheckpointIDCounter;
import io.weir.core.ha.CheckpointRecoveryFactory;
import io.weir.core.ha.CompletedCheckpointStore;
import io.weir.core.storage.CheckpointStorage;
import io.weir.ha.hazelcast.checkpoint.HazelcastCheckpointRecoveryFactory;
import io.weir.ha.hazelcast.jobs.JobLeases;
import io.weir.ha.hazelcast.member.ClusterMember;
import io.weir.ha.hazelcast.member.ClusterSettings;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's membership in the cluster: starts the embedded member (in the background) from the framework
 * properties {@code weir node --cluster} sets ({@link ClusterSettings}) and registers the fenced
 * {@link CheckpointRecoveryFactory} ({@code weir.type=hazelcast}) ranked above the standalone one, so the engine
 * binds it. Registered at once (before the member is up) so the engine never starts with the standalone factory;
 * its methods wait for the member.
 *
 * <p>Thread-safe: all fields are final and thread-safe.
 */
@Component(service = {CheckpointRecoveryFactory.class, ClusterComponent.class}, immediate = true,
        property = {"weir.type=hazelcast", "service.ranking:Integer=100"})
public final class ClusterComponent implements CheckpointRecoveryFactory {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterComponent.class);

    private final ClusterMember member;
    private final JobLeases leases = new JobLeases();
    private final HazelcastCheckpointRecoveryFactory recovery;

    /**
     * @param context this bundle's context, for the framework properties and the class loader
     * @throws IllegalArgumentException naming the property if the cluster settings are missing or malformed
     */
    @Activate
    public ClusterComponent(BundleContext context) {
        ClusterSettings settings = ClusterSettings.fromProperties(context::getProperty);
        LOG.info("Joining cluster '{}' as {}:{} (members {}, heartbeat {} s, member removed after {} s of silence)",
                settings.name(), settings.host(), settings.port(), settings.members(), settings.heartbeatSeconds(),
                settings.maxNoHeartbeatSeconds());
        this.member = new ClusterMember(settings, ClusterComponent.class.getClassLoader());
        this.recovery = new HazelcastCheckpointRecoveryFactory(member, leases);
    }

    @Deactivate
    void deactivate() {
        member.close();
    }

    /** @return the embedded member */
    public ClusterMember member() {
        return member;
    }

    /** @return the leases this node holds */
    public JobLeases leases() {
        return leases;
    }

    /** @return the fenced counter and store factory */
    public HazelcastCheckpointRecoveryFactory recovery() {
        return recovery;
    }

    @Override
    public String type() {
        return recovery.type();
    }

    @Override
    public CheckpointIDCounter createCheckpointIDCounter(String jobName) {
        return recovery.createCheckpointIDCounter(jobName);
    }

    @Override
    public CheckpointIDCounter createCheckpointIDCounter(String jobName, CheckpointStorage storage) throws Exception {
        return recovery.createCheckpointIDCounter(jobName, storage);
    }

    @Override
    public CompletedCheckpointStore createCompletedCheckpointStore(String jobName, int maxRetained) {
        return recovery.createCompletedCheckpointStore(jobName, maxRetained);
    }

    @Override
    public CompletedCheckpointStore createCompletedCheckpointStore(String jobName, int maxRetained, CheckpointStorage storage) {
        return recovery.createCompletedCheckpointStore(jobName, maxRetained, storage);
    }

    @Override
    public boolean fencesRuns() {
        return true;
    }
}
