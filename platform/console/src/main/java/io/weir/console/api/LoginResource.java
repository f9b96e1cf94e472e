package io.weir.console.api;

import io.weir.console.ConsoleOptions;
import io.weir.console.security.ConsoleUsers;
import io.weir.console.security.TokenIssuer;
import jakarta.annotation.security.PermitAll;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Set;

/** {@code POST /api/login}: a user of {@value ConsoleOptions#USERS} gets a bearer token for the actions. */
@Path("login")
@RequestScoped
@PermitAll
public class LoginResource {
    private static final Logger LOG = LoggerFactory.getLogger(LoginResource.class);

    @Inject
    ConsoleUsers users;
    @Inject
    TokenIssuer issuer;
    @Inject
    Config config;

    /**
     * @param body {@code {"user": "...", "password": "..."}}
     * @return 200 {@code {"token", "expires_in" (s), "roles"}}; 401 for a wrong name or password; 400 for a body without both
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Log in: a JWT for the actions (Authorization: Bearer <token>)")
    public Response login(JsonObject body) {
        if (body == null || !body.containsKey("user") || !body.containsKey("password")) {
            throw new IllegalArgumentException("the body must be {\"user\": \"...\", \"password\": \"...\"}");
        }
        String user = body.getString("user", "");
        var roles = users.authenticate(user, body.getString("password", ""));
        if (roles.isEmpty()) {
            LOG.warn("login refused for user '{}'", user);
            return Errors.of(401, users.any() ? "wrong user name or password"
                    : "no console users are configured; set " + ConsoleOptions.USERS + " (name:password:role)");
        }
        long lifetime = config.getOptionalValue(ConsoleOptions.TOKEN_LIFETIME_S, Long.class).orElse(ConsoleOptions.TOKEN_LIFETIME_S_DEFAULT);
        String token = issuer.issue(user, roles.get(), lifetime, System.currentTimeMillis() / 1000);
        LOG.info("user '{}' logged in with roles {}", user, roles.get());
        JsonArrayBuilder r = Json.createArrayBuilder();
        Set<String> sorted = new java.util.TreeSet<>(roles.get());
        sorted.forEach(r::add);
        return Response.ok(Json.createObjectBuilder().add("token", token).add("expires_in", lifetime).add("roles", r).build()).build();
    }
}
