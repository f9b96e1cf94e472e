package io.weir.console.api;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * The REST runtime's own errors (an unknown node, an unknown path, a parameter that is not a number, a wrong media
 * type) in the console's error shape {@code {"errors": ["…"]}} with their status, so that the page shows a sentence
 * instead of "HTTP 404". The status and headers (e.g. {@code WWW-Authenticate}) of the original answer are kept.
 */
@Provider
public class WebErrorMapper implements ExceptionMapper<WebApplicationException> {
    @Override
    public Response toResponse(WebApplicationException e) {
        Response original = e.getResponse();
        Response error = Errors.of(original.getStatus(), message(original.getStatus(), e.getMessage()));
        Response.ResponseBuilder b = Response.fromResponse(error);
        original.getStringHeaders().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("Content-Type") && !name.equalsIgnoreCase("Content-Length")) {
                values.forEach(v -> b.header(name, v));
            }
        });
        return b.build();
    }

    /**
     * Our own messages are sentences and pass unchanged; the runtime's ("HTTP 404 Not Found", "RESTEASY003210: Could not
     * find resource for full path: …") lose their code and get a sentence saying what the request got wrong.
     */
    static String message(int status, String message) {
        String m = message == null ? "" : message;
        boolean runtime = m.isEmpty() || m.startsWith("HTTP " + status) || m.matches("(?s)RESTEASY\\d+: .*");
        if (!runtime) {
            return m;
        }
        String detail = m.replaceFirst("^RESTEASY\\d+: ", "");
        return switch (status) {
            case 401 -> "log in first: actions need the token of a user with role operator (POST /api/login)";
            case 403 -> "your user may not do this: it needs role operator";
            case 404 -> "no such resource in the console's API, or a parameter that is not valid (see GET /openapi): " + detail;
            case 405 -> "the console's API has no such method on this path (see GET /openapi): " + detail;
            case 415 -> "unsupported Content-Type: send JSON to POST /api/login, application/java-archive to a plugin upload";
            default -> detail.isEmpty() ? "HTTP " + status : detail;
        };
    }
}
