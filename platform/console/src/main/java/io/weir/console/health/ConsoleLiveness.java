package io.weir.console.health;

import io.weir.console.node.NodeRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;

/** Liveness: the console answers; UP whatever the nodes do (a node that is down is readiness's business). */
@Liveness
@ApplicationScoped
public class ConsoleLiveness implements HealthCheck {
    @Inject
    NodeRegistry nodes;

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("console").up().withData("nodes", nodes.all().size()).build();
    }
}
