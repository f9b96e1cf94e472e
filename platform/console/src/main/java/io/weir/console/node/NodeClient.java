package io.weir.console.node;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.core.Response;

import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.eclipse.microprofile.rest.client.RestClientBuilder;

/**
 * One configured node: its name, base URL, Rest Client proxy (with the configured timeouts) and how to get its bearer
 * token. Turns every call into a JSON object or one of {@link NodeUnavailableException} (no answer) and
 * {@link NodeErrorException} (an error status, with the node's message). Immutable apart from the proxy, which is
 * thread-safe; the token is read from its file on each action, so a node that rotates it needs no console restart.
 */
public final class NodeClient {
    private final String name;
    private final URI url;
    private final NodeApi api;
    private final Optional<Path> tokenFile;
    private final Optional<String> token;

    /**
     * @param name the node's name in the configuration, not blank
     * @param url its base URL, e.g. {@code http://127.0.0.1:8081}
     * @param connectTimeoutMs TCP connect timeout, &gt; 0
     * @param readTimeoutMs read timeout of one request, &gt; 0
     * @param tokenFile the file holding the node's admin token, if configured
     * @param token the token itself, if configured instead
     */
    public NodeClient(String name, URI url, long connectTimeoutMs, long readTimeoutMs, Optional<Path> tokenFile, Optional<String> token) {
        this.name = name;
        this.url = url;
        this.tokenFile = tokenFile;
        this.token = token;
        this.api = RestClientBuilder.newBuilder().baseUri(url)
                .connectTimeout(connectTimeoutMs, TimeUnit.MILLISECONDS).readTimeout(readTimeoutMs, TimeUnit.MILLISECONDS)
                .property("microprofile.rest.client.disable.default.mapper", true)
                .build(NodeApi.class);
    }

    /** @return the node's name in the configuration */
    public String name() {
        return name;
    }

    /** @return its base URL */
    public URI url() {
        return url;
    }

    /**
     * Calls the node and reads a 2xx answer as a JSON object (an empty object for an empty body).
     *
     * @throws NodeUnavailableException when the node does not answer
     * @throws NodeErrorException for a status &gt;= 400, with the node's message
     */
    public JsonObject call(Function<NodeApi, Response> request) {
        return exchange(request).body();
    }

    /**
     * Like {@link #call} but keeps the node's 2xx status, for answers whose status means something (201 installed, 202
     * not settled yet).
     *
     * @throws NodeUnavailableException when the node does not answer
     * @throws NodeErrorException for a status &gt;= 400, with the node's message
     */
    public Answer exchange(Function<NodeApi, Response> request) {
        Raw raw = send(request);
        if (raw.body().isBlank()) {
            return new Answer(raw.status(), JsonValue.EMPTY_JSON_OBJECT);
        }
        return new Answer(raw.status(), parse(raw.body(), JsonObject.class));
    }

    /**
     * Calls the node and reads a 2xx answer as a JSON array (an empty array for an empty body).
     *
     * @throws NodeUnavailableException when the node does not answer or its answer is not an array
     * @throws NodeErrorException for a status &gt;= 400, with the node's message
     */
    public JsonArray callForArray(Function<NodeApi, Response> request) {
        String body = send(request).body();
        return body.isBlank() ? JsonValue.EMPTY_JSON_ARRAY : parse(body, JsonArray.class);
    }

    private record Raw(int status, String body) {
    }

    private Raw send(Function<NodeApi, Response> request) {
        Response r;
        try {
            r = request.apply(api);
        } catch (ProcessingException e) {
            throw new NodeUnavailableException(name, url.toString(), e.getCause() != null ? e.getCause() : e);
        }
        try (r) {
            String body = r.hasEntity() ? r.readEntity(String.class) : "";
            if (r.getStatus() >= 400) {
                throw new NodeErrorException(r.getStatus(), "node '" + name + "': " + message(r.getStatus(), body));
            }
            return new Raw(r.getStatus(), body);
        } catch (ProcessingException e) {
            throw new NodeUnavailableException(name, url.toString(), e);
        }
    }

    /** The body as JSON; an answer that is not JSON (or not the expected shape) counts as no answer. */
    private <T extends JsonValue> T parse(String body, Class<T> shape) {
        try (JsonReader reader = Json.createReader(new StringReader(body))) {
            return shape.cast(reader.readValue());
        } catch (RuntimeException e) {
            String what = shape == JsonArray.class ? "a JSON array" : "a JSON object";
            throw new NodeUnavailableException(name, url.toString(), new IOException("answer is not " + what + ": " + abbreviate(body), e));
        }
    }

    /**
     * A node's successful answer.
     *
     * @param status its HTTP status, 200–399
     * @param body its JSON object, empty for an empty body
     */
    public record Answer(int status, JsonObject body) {
    }

    /**
     * @return {@code Bearer <token>} for the node's mutating calls
     * @throws NodeErrorException (status 503) when no token is configured or its file cannot be read
     */
    public String authorization() {
        if (token.isPresent()) {
            return "Bearer " + token.get().strip();
        }
        if (tokenFile.isEmpty()) {
            throw new NodeErrorException(503, "node '" + name + "': no token configured; set weir.console.node." + name
                    + ".token-file to the node's <data-dir>/security/admin.token");
        }
        try {
            return "Bearer " + Files.readString(tokenFile.get(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new NodeErrorException(503, "node '" + name + "': cannot read its token file " + tokenFile.get() + " (" + e
                    + "); check weir.console.node." + name + ".token-file");
        }
    }

    /** The node's Flink-style {@code {"errors": [...]}} message, else the body itself, shortened. */
    private static String message(int status, String body) {
        try (JsonReader reader = Json.createReader(new StringReader(body))) {
            JsonArray errors = reader.readObject().getJsonArray("errors");
            if (errors != null && !errors.isEmpty()) {
                return errors.getString(0);
            }
        } catch (RuntimeException notJson) {
            // not the node's error shape (e.g. Jetty's HTML 404 page): report the status
        }
        return "HTTP " + status + (body.isBlank() ? "" : ": " + abbreviate(body));
    }

    private static String abbreviate(String s) {
        String flat = s.replaceAll("\\s+", " ").strip();
        return flat.length() <= 200 ? flat : flat.substring(0, 200) + "…";
    }
}
