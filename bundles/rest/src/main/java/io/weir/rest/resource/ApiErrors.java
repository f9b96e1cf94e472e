package io.weir.rest.resource;

import io.weir.rest.node.JobConflictException;
import io.weir.rest.node.JobNotFoundException;
import io.weir.rest.node.JobSubmissionException;
import io.weir.rest.node.PathNotAllowedException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Maps failures to Flink-style JSON error responses {@code {"errors":["message"]}}:
 * {@link JobSubmissionException} and {@link BadRequestException} 400, {@link JobNotFoundException}
 * 404, {@link JobConflictException} 409, {@link PathNotAllowedException} 403, a {@link WebApplicationException} its own status (e.g. 404
 * for an unknown path, 405 for a wrong method), anything else 500 (logged with its stack trace).
 * Stateless.
 */
public final class ApiErrors {
    private static final Logger LOG = LoggerFactory.getLogger(ApiErrors.class);

    private ApiErrors() {
    }

    /** A request parameter is malformed (400). */
    public static final class BadRequestException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** @param message names the parameter and what is expected */
        public BadRequestException(String message) {
            super(message);
        }
    }

    /**
     * @param status the HTTP status
     * @param message the one error message
     * @return a JSON error response
     */
    public static Response error(int status, String message) {
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE)
                .entity(new Views.Errors(List.of(message))).build();
    }

    /**
     * @param t what a resource threw
     * @return the response for it
     */
    public static Response toResponse(Throwable t) {
        if (t instanceof JobSubmissionException || t instanceof BadRequestException) {
            return error(400, t.getMessage());
        }
        if (t instanceof io.weir.rest.plugins.PluginRequestException p) {
            if (p.status() >= 500) {
                LOG.error("Refused a plugin request: {}", p.getMessage());
            }
            return error(p.status(), p.getMessage());
        }
        if (t instanceof JobNotFoundException) {
            return error(404, t.getMessage());
        }
        if (t instanceof PathNotAllowedException) {
            LOG.warn("Refused a request: {}", t.getMessage());
            return error(403, t.getMessage());
        }
        if (t instanceof JobConflictException) {
            return error(409, t.getMessage());
        }
        if (t instanceof io.weir.rest.node.NodeStorageException) {
            LOG.error("Refused a request: {}", t.getMessage());
            return error(503, t.getMessage());
        }
        if (t instanceof WebApplicationException w) {
            int status = w.getResponse().getStatus();
            String message = switch (status) {
                case 404 -> "not found: no such resource; see docs/rest-api.md for the paths";
                case 405 -> "method not allowed on this path; see docs/rest-api.md";
                case 415 -> "unsupported media type: send the job spec as application/json";
                default -> w.getMessage();
            };
            return error(status, message);
        }
        LOG.error("REST request failed unexpectedly", t);
        return error(500, "internal error: " + t);
    }
}
