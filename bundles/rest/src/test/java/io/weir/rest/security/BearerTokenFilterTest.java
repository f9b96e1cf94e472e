package io.weir.rest.security;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.bind.JsonbBuilder;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringReader;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** Requests without a token, with a bad one and with the node's admin token, through the whiteboard filter. */
class BearerTokenFilterTest {
    private static final long NOW = System.currentTimeMillis();

    @TempDir
    Path data;
    @TempDir
    Path otherData;

    /** A request with the given method and Authorization header; records what the filter aborted with. */
    private static ContainerRequestContext request(String method, String authorization, AtomicReference<Response> aborted) {
        UriInfo uri = (UriInfo) Proxy.newProxyInstance(UriInfo.class.getClassLoader(), new Class<?>[] {UriInfo.class},
                (p, m, a) -> m.getName().equals("getPath") ? "jobs" : null);
        return (ContainerRequestContext) Proxy.newProxyInstance(ContainerRequestContext.class.getClassLoader(),
                new Class<?>[] {ContainerRequestContext.class}, (p, m, a) -> switch (m.getName()) {
                    case "getMethod" -> method;
                    case "getHeaderString" -> "Authorization".equalsIgnoreCase((String) a[0]) ? authorization : null;
                    case "getUriInfo" -> uri;
                    case "abortWith" -> {
                        aborted.set((Response) a[0]);
                        yield null;
                    }
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private Response filter(String method, String authorization) {
        NodeKeys keys = NodeKeys.loadOrCreate(data, NOW);
        AtomicReference<Response> aborted = new AtomicReference<>();
        new BearerTokenFilter(new BearerAuthentication(keys.verifier(), keys.tokenFile()))
                .filter(request(method, authorization, aborted));
        return aborted.get();
    }

    private static String error(Response r) {
        JsonObject o = Json.createReader(new StringReader(JsonbBuilder.create().toJson(r.getEntity()))).readObject();
        return o.getJsonArray("errors").getString(0);
    }

    private String adminToken() throws Exception {
        NodeKeys.loadOrCreate(data, NOW);
        return Files.readString(data.resolve("security/admin.token")).strip();
    }

    @Test
    void getNeedsNoToken() {
        assertThat(filter("GET", null)).isNull();
    }

    @Test
    void postWithoutTokenIs401NamingWhereTheTokenIs() {
        Response r = filter("POST", null);

        assertThat(r.getStatus()).isEqualTo(401);
        assertThat(r.getHeaderString("WWW-Authenticate")).startsWith("Bearer");
        assertThat(error(r)).contains("Authorization: Bearer").contains(data.resolve("security/admin.token").toString());
    }

    @Test
    void patchAndDeleteWithoutTokenAre401() {
        assertThat(filter("PATCH", null).getStatus()).isEqualTo(401);
        assertThat(filter("DELETE", null).getStatus()).isEqualTo(401);
    }

    @Test
    void theAdminTokenPasses() throws Exception {
        assertThat(filter("POST", "Bearer " + adminToken())).isNull();
        assertThat(filter("PATCH", "bearer " + adminToken())).as("the scheme is case-insensitive").isNull();
    }

    @Test
    void aTokenOfAnotherNodeIs401() throws Exception {
        NodeKeys.loadOrCreate(otherData, NOW);
        String foreign = Files.readString(otherData.resolve("security/admin.token")).strip();

        Response r = filter("POST", "Bearer " + foreign);

        assertThat(r.getStatus()).isEqualTo(401);
        assertThat(error(r)).contains("rejected");
        assertThat(error(r)).doesNotContain(foreign);
    }

    @Test
    void anExpiredTokenIs401() throws Exception {
        NodeKeys keys = NodeKeys.loadOrCreate(data, NOW);
        String expired = keys.issueToken("admin", NOW - Duration.ofHours(2).toMillis(), Duration.ofHours(1));

        Response r = filter("POST", "Bearer " + expired);

        assertThat(r.getStatus()).isEqualTo(401);
        assertThat(error(r)).contains("Expired");
    }

    @Test
    void aTamperedTokenIs401() throws Exception {
        String token = adminToken();
        String[] parts = token.split("\\.");
        String tampered = parts[0] + "." + parts[1].substring(0, parts[1].length() - 2) + "AA." + parts[2];

        assertThat(filter("POST", "Bearer " + tampered).getStatus()).isEqualTo(401);
    }

    @Test
    void garbageAndOtherSchemesAre401() throws Exception {
        assertThat(error(filter("POST", "Bearer not-a-jwt"))).contains("not a JWT");
        assertThat(error(filter("POST", "Basic " + adminToken()))).contains("must be 'Bearer <token>'");
    }
}
