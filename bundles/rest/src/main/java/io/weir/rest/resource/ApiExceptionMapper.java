package io.weir.rest.resource;

import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsExtension;

/** Whiteboard extension that turns every exception of a resource into {@link ApiErrors#toResponse}. */
@Component(service = ExceptionMapper.class, immediate = true)
@JakartarsExtension
public final class ApiExceptionMapper implements ExceptionMapper<Exception> {
    @Override
    public Response toResponse(Exception exception) {
        return ApiErrors.toResponse(exception);
    }
}
