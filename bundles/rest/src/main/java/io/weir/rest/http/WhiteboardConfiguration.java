package io.weir.rest.http;

import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Dictionary;
import java.util.Hashtable;

/**
 * Turns the Jakarta REST servlet whiteboard on: its runtime component has
 * {@code configuration-policy=require}, so nothing is served until configuration
 * {@value #PID} exists. This creates it (context path {@code /}, so the API's paths are Flink's:
 * {@code /jobs}, {@code /overview}) unless it exists already. Host and port of the HTTP server are
 * framework properties the launcher sets ({@code org.apache.felix.http.host},
 * {@code org.osgi.service.http.port}).
 */
@Component(immediate = true)
public final class WhiteboardConfiguration {
    /** The whiteboard runtime's configuration PID. */
    public static final String PID = "JakartarsServletWhiteboardRuntimeComponent";
    private static final Logger LOG = LoggerFactory.getLogger(WhiteboardConfiguration.class);

    /**
     * @param configAdmin where the configuration goes
     * @throws UncheckedIOException if ConfigurationAdmin cannot store it
     */
    @Activate
    public WhiteboardConfiguration(@Reference ConfigurationAdmin configAdmin) {
        try {
            Configuration c = configAdmin.getConfiguration(PID, "?");
            if (c.getProperties() == null) {
                Dictionary<String, Object> props = new Hashtable<>();
                props.put("jersey.context.path", "/");
                c.update(props);
                LOG.debug("Created configuration {} {}", PID, props);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create configuration " + PID + " of the REST whiteboard: " + e.getMessage(), e);
        }
    }
}
