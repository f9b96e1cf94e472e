package io.weir.launcher;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.io.IOException;
import java.io.StringReader;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The client side of the node's REST API for {@code weir submit|list|cancel}: JDK
 * {@link HttpClient}, JSON through JSON-P. A node that does not answer becomes one clear
 * {@link LauncherException}, not a stack trace.
 *
 * <p>Thread-safe (the JDK client is); one instance per command.
 */
final class NodeClient {
    /** Environment variable with the node's URL, used when {@code --node} is not given. */
    static final String NODE_ENV = "WEIR_NODE";
    /** The node's URL when neither {@code --node} nor {@value #NODE_ENV} is given. */
    static final String DEFAULT_URL = "http://127.0.0.1:" + NodeSettings.DEFAULT_PORT;
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final URI base;
    private final HttpClient http;

    /**
     * An answer of the node.
     *
     * @param status the HTTP status
     * @param body the JSON body, or an empty object if there is none
     */
    record Answer(int status, JsonObject body) {
        /** @return the first of Flink's {@code errors}, or a description of the status */
        String error() {
            if (body.get("errors") instanceof JsonArray a && !a.isEmpty() && a.get(0) instanceof JsonString s) {
                return s.getString();
            }
            return "the node answered HTTP " + status;
        }
    }

    /**
     * @param base the node's URL, e.g. {@code http://127.0.0.1:8081}
     * @throws LauncherException (exit 2) if it is not an http(s) URL
     */
    NodeClient(String base) {
        URI uri;
        try {
            uri = URI.create(base.endsWith("/") ? base.substring(0, base.length() - 1) : base);
        } catch (IllegalArgumentException e) {
            throw new LauncherException(ExitCodes.USAGE, "--node '" + base + "' is not a URL (e.g. " + DEFAULT_URL + ")");
        }
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new LauncherException(ExitCodes.USAGE, "--node '" + base + "' must be an http URL such as " + DEFAULT_URL);
        }
        this.base = uri;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    /** @return the node's URL */
    URI base() {
        return base;
    }

    /**
     * @param method GET, POST, PATCH, ...
     * @param pathAndQuery e.g. {@code /jobs?x=y}, already URL-encoded
     * @param body the request body (sent as application/json), or null
     * @param token the bearer token, or null
     * @return the answer
     * @throws LauncherException (exit 1) if the node cannot be reached or answers something that is not JSON
     */
    Answer send(String method, String pathAndQuery, String body, String token) {
        return send(method, pathAndQuery, body == null ? null : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8),
                "application/json", token, REQUEST_TIMEOUT);
    }

    /**
     * @param method GET, POST, PATCH, ...
     * @param pathAndQuery e.g. {@code /plugins?file=x.jar}, already URL-encoded
     * @param body the request body, or null
     * @param contentType the body's media type (ignored without a body)
     * @param token the bearer token, or null
     * @param timeout the longest wait for the answer
     * @return the answer
     * @throws LauncherException (exit 1) if the node cannot be reached or answers something that is not JSON
     */
    Answer send(String method, String pathAndQuery, HttpRequest.BodyPublisher body, String contentType, String token,
            Duration timeout) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + pathAndQuery)).timeout(timeout)
                .header("Accept", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : body);
        if (body != null) {
            b.header("Content-Type", contentType);
        }
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> r;
        try {
            r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (ConnectException | HttpConnectTimeoutException e) {
            throw notRunning();
        } catch (IOException e) {
            if (e.getCause() instanceof ConnectException) {
                throw notRunning();
            }
            throw new LauncherException(ExitCodes.FAILED, "the node at " + base + " did not answer " + method + " "
                    + pathAndQuery + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LauncherException(ExitCodes.INTERRUPTED, "interrupted while waiting for the node at " + base);
        }
        return new Answer(r.statusCode(), parse(r.body(), r.statusCode()));
    }

    private LauncherException notRunning() {
        return new LauncherException(ExitCodes.FAILED, "no Weir node is running at " + base
                + ": start one with 'weir node', or point --node (or " + NODE_ENV + ") at a running one");
    }

    private JsonObject parse(String text, int status) {
        if (text == null || text.isBlank()) {
            return JsonValue.EMPTY_JSON_OBJECT;
        }
        try (JsonReader reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        } catch (JsonException e) {
            throw new LauncherException(ExitCodes.FAILED, "the node at " + base + " answered HTTP " + status
                    + " with something that is not a JSON object; is " + base + " a Weir node?");
        }
    }

    /**
     * @param tokenFile the admin token's file
     * @return the token
     * @throws LauncherException (exit 1) naming the file and where the node writes it, if it cannot be read
     */
    static String readToken(Path tokenFile) {
        try {
            String token = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
            if (token.isEmpty()) {
                throw new LauncherException(ExitCodes.FAILED, "token file " + tokenFile + " is empty");
            }
            return token;
        } catch (NoSuchFileException e) {
            throw new LauncherException(ExitCodes.FAILED, "no token file at " + tokenFile + ": a node writes its admin token to"
                    + " DATA_DIR/security/admin.token on first start; pass --data-dir DIR of the node or --token-file FILE");
        } catch (IOException e) {
            throw new LauncherException(ExitCodes.FAILED, "cannot read token file " + tokenFile + ": " + e.getMessage()
                    + " (it is readable by the node's owner only)");
        }
    }
}
