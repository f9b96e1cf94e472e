package io.weir.rest.cluster;

import io.weir.core.cluster.ClusterJobs;
import io.weir.rest.resource.ApiErrors;
import io.weir.rest.security.BearerAuthentication;
import io.weir.rest.security.NodeSecurity;
import io.weir.rest.security.TokenRejectedException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.PathSegment;
import jakarta.ws.rs.core.Response;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * Whiteboard pre-matching filter that, on a node started with {@code --cluster} (a {@link ClusterJobs} service is
 * registered), answers {@code /jobs} requests for the whole cluster through {@link ClusterJobRoutes}; on a standalone
 * node (no such service) and for requests another member forwarded ({@link ClusterJobs#FORWARDED_HEADER}) it does
 * nothing. A mutating request it answers is authenticated here first, exactly as {@code BearerTokenFilter} does (which
 * only runs after matching).
 *
 * <p>Thread-safe: the cluster service is a volatile reference SCR sets; the rest is immutable.
 */
@Component(service = ContainerRequestFilter.class, immediate = true)
@JakartarsExtension
@PreMatching
public final class ClusterRoutingFilter implements ContainerRequestFilter {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterRoutingFilter.class);

    private final BearerAuthentication authentication;
    /** Present only on a cluster node. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile ClusterJobs cluster;

    /** @param security the node's token check */
    @Activate
    public ClusterRoutingFilter(@Reference NodeSecurity security) {
        this.authentication = security.authentication();
    }

    @Override
    public void filter(ContainerRequestContext request) {
        ClusterJobs jobs = cluster;
        if (jobs == null || request.getHeaderString(ClusterJobs.FORWARDED_HEADER) != null) {
            return;
        }
        List<PathSegment> path = request.getUriInfo().getPathSegments(true);
        List<String> segments = path.stream().map(PathSegment::getPath).filter(s -> !s.isEmpty()).toList();
        if (segments.isEmpty() || !"jobs".equals(segments.get(0))) {
            return;
        }
        String method = request.getMethod();
        boolean mutating = !"GET".equals(method) && !"HEAD".equals(method) && !"OPTIONS".equals(method);
        Optional<ClusterJobs.Answer> answer;
        try {
            if (mutating) { // every mutating /jobs request needs the token; checked before anything is forwarded
                authentication.check(method, request.getHeaderString(HttpHeaders.AUTHORIZATION));
            }
        } catch (TokenRejectedException e) {
            LOG.warn("Refused {} /{}: {}", method, request.getUriInfo().getPath(), e.getMessage());
            request.abortWith(Response.fromResponse(ApiErrors.error(401, e.getMessage()))
                    .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"weir\"").build());
            return;
        }
        answer = new ClusterJobRoutes(jobs, System::currentTimeMillis).route(method, segments.subList(1, segments.size()),
                request.getUriInfo().getRequestUri().getRawQuery(), () -> readBody(request));
        answer.ifPresent(a -> {
            Response.ResponseBuilder r = Response.status(a.status());
            if (!a.body().isEmpty()) {
                r.entity(a.body()).type(a.contentType().isEmpty() ? "application/json" : a.contentType());
            }
            request.abortWith(r.build());
        });
    }

    private static String readBody(ContainerRequestContext request) {
        try (InputStream in = request.getEntityStream()) {
            return in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the request body: " + e.getMessage(), e);
        }
    }
}
