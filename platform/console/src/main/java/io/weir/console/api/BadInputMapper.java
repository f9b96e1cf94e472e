package io.weir.console.api;

import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** Bad input to the console (its message names what is wrong): 400. */
@Provider
public class BadInputMapper implements ExceptionMapper<IllegalArgumentException> {
    @Override
    public Response toResponse(IllegalArgumentException e) {
        return Errors.of(400, e.getMessage());
    }
}
