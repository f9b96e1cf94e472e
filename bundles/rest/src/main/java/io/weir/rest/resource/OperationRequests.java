package io.weir.rest.resource;

import io.weir.rest.node.JobOperations;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Reads the bodies of {@code POST /jobs/:id/savepoints} and {@code /stop} (Flink's field names) and
 * writes an operation's status. Stateless.
 */
final class OperationRequests {
    private static final JsonProvider JSON = JsonProvider.provider();

    private OperationRequests() {
    }

    /** A savepoint or stop request: {@code target} null for the node's savepoint directory. */
    record SavepointRequest(String target, boolean flag) {
    }

    /**
     * @param body the request body; empty for all defaults
     * @param targetField {@code target-directory} (savepoints) or {@code targetDirectory} (stop), as Flink names it
     * @param flagField {@code cancel-job} (savepoints) or {@code drain} (stop)
     * @return the request
     * @throws ApiErrors.BadRequestException (400) for a body that is not a JSON object, an unknown field or a
     *         field of the wrong type
     */
    static SavepointRequest parse(String body, String targetField, String flagField) {
        if (body == null || body.isBlank()) {
            return new SavepointRequest(null, false);
        }
        JsonObject o;
        try (JsonReader r = JSON.createReader(new StringReader(body))) {
            o = r.readObject();
        } catch (JsonException | IllegalStateException e) {
            throw new ApiErrors.BadRequestException("the body must be a JSON object like {\"" + targetField + "\": \"DIR\", \""
                    + flagField + "\": false}: " + e.getMessage());
        }
        for (String key : o.keySet()) {
            if (!Set.of(targetField, flagField).contains(key)) {
                throw new ApiErrors.BadRequestException("unknown field '" + key + "'; expected '" + targetField + "' and/or '"
                        + flagField + "'");
            }
        }
        String target = null;
        JsonValue t = o.get(targetField);
        if (t != null && t != JsonValue.NULL) {
            if (!(t instanceof JsonString s)) {
                throw new ApiErrors.BadRequestException("'" + targetField + "' must be a string (a directory), got " + t);
            }
            target = s.getString();
        }
        boolean flag = false;
        JsonValue f = o.get(flagField);
        if (f != null && f != JsonValue.NULL) {
            if (f != JsonValue.TRUE && f != JsonValue.FALSE) {
                throw new ApiErrors.BadRequestException("'" + flagField + "' must be true or false, got " + f);
            }
            flag = f == JsonValue.TRUE;
        }
        return new SavepointRequest(target, flag);
    }

    /**
     * @param op an operation
     * @return its status: IN_PROGRESS without {@code operation}, or COMPLETED with the location (the savepoint directory, an absolute path),
     *         the checkpoint id, or the failure cause
     */
    static Views.OperationStatus status(JobOperations.Operation op) {
        CompletableFuture<Object> result = op.result();
        if (!result.isDone()) {
            return new Views.OperationStatus(new Views.OperationState("IN_PROGRESS"), null);
        }
        Views.OperationState completed = new Views.OperationState("COMPLETED");
        try {
            Object value = result.get();
            if (value instanceof Path p) {
                return new Views.OperationStatus(completed, new Views.OperationResult(p.toString(), null, null));
            }
            return new Views.OperationStatus(completed, new Views.OperationResult(null, (Long) value, null));
        } catch (ExecutionException | CompletionException e) {
            Throwable cause = e.getCause() instanceof CompletionException c && c.getCause() != null ? c.getCause()
                    : e.getCause() != null ? e.getCause() : e;
            StringWriter trace = new StringWriter();
            cause.printStackTrace(new PrintWriter(trace));
            return new Views.OperationStatus(completed, new Views.OperationResult(null, null,
                    new Views.FailureCause(cause.getClass().getName(), String.valueOf(cause.getMessage()), trace.toString())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // cannot happen: the future is done
            throw new IllegalStateException("interrupted reading a completed operation", e);
        }
    }
}
