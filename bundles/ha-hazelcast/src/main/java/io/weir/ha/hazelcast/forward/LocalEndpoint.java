package io.weir.ha.hazelcast.forward;

import io.weir.core.cluster.ClusterJobs;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * This node's own REST API, called by {@link ForwardedRequest} on behalf of another member: with this node's admin
 * token (read from its file at every call, so a renewed token is used) and {@value ClusterJobs#FORWARDED_HEADER}, so
 * the API answers locally. Kept in the member's user context under {@link #KEY}. Thread-safe (immutable; the HTTP
 * client is thread-safe).
 */
public final class LocalEndpoint {
    /** Key in the member's user context. */
    public static final String KEY = "weir.local-endpoint";
    /** Longest wait for this node's own answer, seconds. */
    static final int TIMEOUT_SECONDS = 25;

    private final String url;
    private final Path tokenFile;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /**
     * @param url this node's REST URL, e.g. {@code http://127.0.0.1:8081}
     * @param tokenFile this node's admin token file ({@code <data-dir>/security/admin.token})
     */
    public LocalEndpoint(String url, Path tokenFile) {
        this.url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.tokenFile = tokenFile;
    }

    /**
     * @param method HTTP method
     * @param pathAndQuery path and query, URL-encoded
     * @param body request body or null
     * @return the answer; status 502 with a JSON error if this node's API cannot be reached or its token read
     */
    ClusterJobs.Answer send(String method, String pathAndQuery, String body) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + pathAndQuery)).timeout(Duration.ofSeconds(TIMEOUT_SECONDS))
                    .header(ClusterJobs.FORWARDED_HEADER, "true")
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
            if (!"GET".equals(method)) {
                b.header("Authorization", "Bearer " + Files.readString(tokenFile, StandardCharsets.UTF_8).strip());
            }
            if (body != null) {
                b.header("Content-Type", "application/json");
            }
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new ClusterJobs.Answer(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), r.body());
        } catch (IOException e) {
            return error("node " + url + " could not answer " + method + " " + pathAndQuery + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return error("interrupted while node " + url + " answered " + method + " " + pathAndQuery);
        }
    }

    static ClusterJobs.Answer error(String message) {
        return new ClusterJobs.Answer(502, "application/json",
                jakarta.json.Json.createObjectBuilder().add("errors", jakarta.json.Json.createArrayBuilder().add(message)).build().toString());
    }
}
