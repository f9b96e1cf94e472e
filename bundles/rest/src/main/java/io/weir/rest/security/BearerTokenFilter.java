package io.weir.rest.security;

import io.weir.rest.resource.ApiErrors;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsExtension;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whiteboard request filter: refuses a mutating request without a valid bearer token with 401,
 * {@code WWW-Authenticate: Bearer} and {@code {"errors":["reason"]}}, and logs the refusal (method,
 * path, reason; never the token). Resources that mutate select it by name ({@value #NAME}), so the
 * whiteboard serves them only while it is registered.
 */
@Component(service = ContainerRequestFilter.class, immediate = true)
@JakartarsExtension
@JakartarsName(BearerTokenFilter.NAME)
public final class BearerTokenFilter implements ContainerRequestFilter {
    /** The extension's {@code osgi.jakartars.name}. */
    public static final String NAME = "weir-bearer-auth";
    private static final Logger LOG = LoggerFactory.getLogger(BearerTokenFilter.class);

    private final BearerAuthentication authentication;

    /** @param security the node's key and token */
    @Activate
    public BearerTokenFilter(@Reference NodeSecurity security) {
        this(security.authentication());
    }

    /** @param authentication the check */
    public BearerTokenFilter(BearerAuthentication authentication) {
        this.authentication = authentication;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        try {
            authentication.check(request.getMethod(), request.getHeaderString(HttpHeaders.AUTHORIZATION));
        } catch (TokenRejectedException e) {
            LOG.warn("Refused {} /{}: {}", request.getMethod(), request.getUriInfo().getPath(), e.getMessage());
            request.abortWith(jakarta.ws.rs.core.Response.fromResponse(ApiErrors.error(401, e.getMessage()))
                    .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"weir\"").build());
        }
    }
}
