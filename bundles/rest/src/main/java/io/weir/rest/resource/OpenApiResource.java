package io.weir.rest.resource;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsResource;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /openapi.json}: the OpenAPI 3.0 document of the whole REST API (every path, its parameters,
 * request and response bodies, error codes and the bearer security scheme). The document is written by
 * hand ({@value #DOCUMENT} in this bundle); OpenApiDocumentTest fails when a resource method is missing
 * from it or it names one that does not exist.
 *
 * <p>Thread-safe: the document is read once, at construction, and never changes.
 */
@Component(service = OpenApiResource.class, immediate = true)
@JakartarsResource
@Path("/openapi.json")
public final class OpenApiResource {
    /** The document's resource name, beside this class. */
    static final String DOCUMENT = "openapi.json";

    private final String document;

    /**
     * Reads the document from the bundle.
     *
     * @throws IllegalStateException if the bundle lacks it (a packaging error)
     * @throws UncheckedIOException if it cannot be read
     */
    @Activate
    public OpenApiResource() {
        this.document = read();
    }

    /** @return the OpenAPI document, JSON text */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public String document() {
        return document;
    }

    static String read() {
        try (InputStream in = OpenApiResource.class.getResourceAsStream(DOCUMENT)) {
            if (in == null) {
                throw new IllegalStateException("the bundle has no " + DOCUMENT + " beside " + OpenApiResource.class.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + DOCUMENT + " from the bundle", e);
        }
    }
}
