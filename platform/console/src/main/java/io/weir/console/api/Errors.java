package io.weir.console.api;

import jakarta.json.Json;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** The console's error bodies: Flink's {@code {"errors": ["…"]}}, as the node's. */
final class Errors {
    private Errors() {
    }

    static Response of(int status, String message) {
        return Response.status(status).type(MediaType.APPLICATION_JSON)
                .entity(Json.createObjectBuilder().add("errors", Json.createArrayBuilder().add(message)).build().toString()).build();
    }
}
