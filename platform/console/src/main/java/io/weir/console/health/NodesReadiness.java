package io.weir.console.health;

import io.weir.console.node.NodeClient;
import io.weir.console.node.NodeErrorException;
import io.weir.console.node.NodeRegistry;
import io.weir.console.node.NodeUnavailableException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness: every configured node answers {@code GET /overview} now (asked at each health request, within the
 * configured timeouts). Data: one entry per node, {@code up} or the reason it is not.
 */
@Readiness
@ApplicationScoped
public class NodesReadiness implements HealthCheck {
    @Inject
    NodeRegistry nodes;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder b = HealthCheckResponse.named("nodes").up();
        for (NodeClient node : nodes.all()) {
            try {
                node.call(api -> api.overview());
                b.withData(node.name(), "up");
            } catch (NodeUnavailableException | NodeErrorException e) {
                b.down().withData(node.name(), e.getMessage());
            }
        }
        return b.build();
    }
}
