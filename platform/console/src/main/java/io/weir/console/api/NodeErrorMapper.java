package io.weir.console.api;

import io.weir.console.node.NodeErrorException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * A node's error answer, passed on with its message: 400, 403, 404, 409 keep their status; the node refusing the
 * console's own token (401) and the node's 5xx become 502 (the console's request was fine, its upstream was not).
 */
@Provider
public class NodeErrorMapper implements ExceptionMapper<NodeErrorException> {
    @Override
    public Response toResponse(NodeErrorException e) {
        int status = e.status();
        if (status == 401) {
            return Errors.of(502, e.getMessage() + " (the node refused the console's token: check weir.console.node.<name>.token-file)");
        }
        return Errors.of(status >= 500 && status != 501 && status != 503 && status != 504 ? 502 : status, e.getMessage());
    }
}
