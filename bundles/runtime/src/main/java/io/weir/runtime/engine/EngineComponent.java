package io.weir.runtime.engine;

import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.plugin.SourceFactory;
import io.weir.core.barrier.CheckpointBarrierHandlerFactory;
import io.weir.core.config.Configuration;
import io.weir.core.config.EngineOptions;
import io.weir.core.coordination.CheckpointCoordinatorFactory;
import io.weir.core.engine.Engine;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobListener;
import io.weir.core.ha.CheckpointRecoveryFactory;
import io.weir.core.job.JobGraph;
import io.weir.core.plugin.MapPluginRegistry;
import io.weir.core.plugin.PluginBinding;
import io.weir.core.plugin.PluginConflict;
import io.weir.core.plugin.PluginOrigin;
import io.weir.core.plugin.PluginRegistry;
import io.weir.core.plugin.PluginVersion;
import io.weir.core.plugin.VersionRange;
import io.weir.core.state.StateBackend;
import io.weir.core.storage.CheckpointStorageFactory;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The OSGi face of the engine: a Declarative Services component that collects plugin factories,
 * state backends and barrier handlers as they come and go, and registers the {@link Engine} and
 * the {@link PluginRegistry} once storage, coordinator and recovery services are present and its
 * configuration ({@link EngineOptions}, ConfigurationAdmin PID {@value EngineOptions#PID}; the
 * distribution ships {@code conf/engine/io.weir.engine.cfg}, which FileInstall delivers) exists.
 * The configuration is required so that the engine never starts with defaults and then changes
 * under running jobs. A thin layer: all logic is in {@link LocalEngine}.
 */
@Component(service = {Engine.class, PluginRegistry.class}, immediate = true,
        configurationPid = EngineOptions.PID, configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class EngineComponent implements Engine, PluginRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(EngineComponent.class);

    private final MapPluginRegistry plugins = new MapPluginRegistry();
    private final Map<String, StateBackend> stateBackends = new ConcurrentHashMap<>();
    private final Map<String, CheckpointBarrierHandlerFactory> barrierHandlers = new ConcurrentHashMap<>();
    /** Set by SCR before activate (static reference), read after; DS orders both. */
    @Reference
    private CheckpointStorageFactory storage;
    /** Set by SCR before activate (static reference), read after; DS orders both. */
    @Reference
    private CheckpointCoordinatorFactory coordinators;
    /** Set by SCR before activate (static reference), read after; DS orders both. */
    @Reference
    private CheckpointRecoveryFactory recovery;
    /** Written in activate, read by service calls, which DS makes only while the component is active (activate happens-before them). */
    private LocalEngine engine;

    /**
     * @param properties the engine's configuration (PID {@value EngineOptions#PID})
     * @throws IllegalArgumentException naming the option, its value and the configuration if a value
     *         is bad (DS then reports the component as failed to activate, and {@code weir} says so)
     */
    @Activate
    void activate(Map<String, Object> properties) {
        Configuration config = EngineOptions.fromProperties(properties, source(properties));
        int asyncThreads = config.get(EngineOptions.ASYNC_THREADS);
        engine = new LocalEngine(new EngineServices(plugins, stateBackends, storage, barrierHandlers, coordinators, recovery,
                LocalEngine.newAsyncOperations(asyncThreads), LocalEngine.newTimers()));
        LOG.info("Weir engine active ({} {}, state backends {}, barrier handlers {}, plugins {})", EngineOptions.ASYNC_THREADS.key(),
                asyncThreads, stateBackends.keySet(), barrierHandlers.keySet(), plugins.types());
    }

    /**
     * A changed configuration while the engine runs: kept out of the running engine (its pools are
     * sized once; restarting it would cancel running jobs) and applied at the next start.
     */
    @Modified
    void modified(Map<String, Object> properties) {
        LOG.warn("The engine configuration ({}) changed; it takes effect when the engine next starts (the next weir command)",
                source(properties));
    }

    /** @return the file FileInstall read the configuration from, or its PID */
    private static String source(Map<String, Object> properties) {
        Object file = properties.get("felix.fileinstall.filename");
        return file != null ? String.valueOf(file) : "engine configuration " + EngineOptions.PID;
    }

    @Deactivate
    void deactivate() {
        engine.close();
    }

    @Override
    public JobHandle submit(JobGraph job, JobListener listener) {
        return engine.submit(job, listener);
    }

    @Override
    public Optional<SourceFactory> source(String type) {
        return plugins.source(type);
    }

    @Override
    public Optional<OperatorFactory> operator(String type) {
        return plugins.operator(type);
    }

    @Override
    public Optional<SinkFactory> sink(String type) {
        return plugins.sink(type);
    }

    @Override
    public SortedSet<String> types() {
        return plugins.types();
    }

    @Override
    public Optional<PluginBinding> resolve(String type, VersionRange range, java.util.Set<PluginOrigin> excluded) {
        return plugins.resolve(type, range, excluded);
    }

    @Override
    public java.util.List<PluginOrigin> versions(String type) {
        return plugins.versions(type);
    }

    @Override
    public java.util.List<PluginConflict> conflicts() {
        return plugins.conflicts();
    }

    @Override
    public AutoCloseable addListener(Listener listener) {
        return plugins.addListener(listener);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    void bindSource(SourceFactory f, org.osgi.framework.ServiceReference<SourceFactory> ref) {
        PluginOrigin origin = origin(ref);
        plugins.addSource(f, origin);
        LOG.info("Plugin source type '{}' installed ({})", f.type(), origin);
    }

    void unbindSource(SourceFactory f, org.osgi.framework.ServiceReference<SourceFactory> ref) {
        plugins.removeSource(f);
        LOG.info("Plugin source type '{}' removed ({})", f.type(), origin(ref));
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    void bindOperator(OperatorFactory f, org.osgi.framework.ServiceReference<OperatorFactory> ref) {
        PluginOrigin origin = origin(ref);
        plugins.addOperator(f, origin);
        LOG.info("Plugin operator type '{}' installed ({})", f.type(), origin);
    }

    void unbindOperator(OperatorFactory f, org.osgi.framework.ServiceReference<OperatorFactory> ref) {
        plugins.removeOperator(f);
        LOG.info("Plugin operator type '{}' removed ({})", f.type(), origin(ref));
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    void bindSink(SinkFactory f, org.osgi.framework.ServiceReference<SinkFactory> ref) {
        PluginOrigin origin = origin(ref);
        plugins.addSink(f, origin);
        LOG.info("Plugin sink type '{}' installed ({})", f.type(), origin);
    }

    void unbindSink(SinkFactory f, org.osgi.framework.ServiceReference<SinkFactory> ref) {
        plugins.removeSink(f);
        LOG.info("Plugin sink type '{}' removed ({})", f.type(), origin(ref));
    }

    /**
     * @return the bundle and version serving a factory service (its bundle's symbolic name and {@code Bundle-Version});
     *         {@link PluginOrigin#unbundled()} if the service is already unregistered and has no bundle any more
     */
    private static PluginOrigin origin(org.osgi.framework.ServiceReference<?> ref) {
        org.osgi.framework.Bundle b = ref.getBundle();
        if (b == null) {
            return PluginOrigin.unbundled();
        }
        org.osgi.framework.Version v = b.getVersion();
        return new PluginOrigin(b.getSymbolicName(), new PluginVersion(v.getMajor(), v.getMinor(), v.getMicro(), v.getQualifier()));
    }

    @Reference(cardinality = ReferenceCardinality.AT_LEAST_ONE, policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    void bindStateBackend(StateBackend b) {
        stateBackends.put(b.type(), b);
    }

    void unbindStateBackend(StateBackend b) {
        stateBackends.remove(b.type(), b);
    }

    @Reference(cardinality = ReferenceCardinality.AT_LEAST_ONE, policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    void bindBarrierHandler(CheckpointBarrierHandlerFactory f) {
        barrierHandlers.put(f.type(), f);
    }

    void unbindBarrierHandler(CheckpointBarrierHandlerFactory f) {
        barrierHandlers.remove(f.type(), f);
    }
}
