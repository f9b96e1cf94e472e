package io.weir.rest.security;

import io.weir.rest.node.NodeProperties;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

/**
 * The node's key and admin token ({@link NodeKeys}) under the data directory, loaded or created
 * when the REST bundle starts, and the {@link BearerAuthentication} built on them. If this
 * component cannot activate (e.g. the data directory is not writable), the bearer filter and with
 * it every mutating resource stay unregistered: the node refuses mutations rather than allow them
 * unauthenticated.
 */
@Component(service = NodeSecurity.class, immediate = true)
public final class NodeSecurity {
    private final NodeKeys keys;
    private final BearerAuthentication authentication;

    /** @param context this bundle's context, for {@link NodeProperties#DATA_DIR} */
    @Activate
    public NodeSecurity(BundleContext context) {
        this.keys = NodeKeys.loadOrCreate(NodeProperties.dataDir(context), System.currentTimeMillis());
        this.authentication = new BearerAuthentication(keys.verifier(), keys.tokenFile());
    }

    /** @return the key and token */
    public NodeKeys keys() {
        return keys;
    }

    /** @return the request check */
    public BearerAuthentication authentication() {
        return authentication;
    }
}
