package io.weir.console.api;

import io.weir.console.node.NodeUnavailableException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** A node that does not answer: 502 with the reason (connection refused, timeout). */
@Provider
public class NodeUnavailableMapper implements ExceptionMapper<NodeUnavailableException> {
    @Override
    public Response toResponse(NodeUnavailableException e) {
        return Errors.of(502, e.getMessage());
    }
}
