package io.weir.console.node;

import io.weir.console.ConsoleOptions;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The configured nodes ({@value ConsoleOptions#NODES}), each as a {@link NodeClient}, built once at start. Thread-safe
 * (immutable after {@code @PostConstruct}).
 */
@ApplicationScoped
public class NodeRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(NodeRegistry.class);

    @Inject
    Config config;

    /** Written once in {@link #init()}, read-only after. */
    private Map<String, NodeClient> nodes = Map.of();

    @PostConstruct
    void init() {
        String spec = config.getOptionalValue(ConsoleOptions.NODES, String.class).orElse(ConsoleOptions.NODES_DEFAULT);
        long connect = config.getOptionalValue(ConsoleOptions.CONNECT_TIMEOUT_MS, Long.class).orElse(ConsoleOptions.CONNECT_TIMEOUT_MS_DEFAULT);
        long read = config.getOptionalValue(ConsoleOptions.READ_TIMEOUT_MS, Long.class).orElse(ConsoleOptions.READ_TIMEOUT_MS_DEFAULT);
        Map<String, NodeClient> built = new LinkedHashMap<>();
        for (Map.Entry<String, URI> e : parse(spec).entrySet()) {
            String name = e.getKey();
            Optional<Path> tokenFile = config.getOptionalValue(ConsoleOptions.NODE_PREFIX + name + ConsoleOptions.TOKEN_FILE_SUFFIX, String.class).map(Path::of);
            Optional<String> token = config.getOptionalValue(ConsoleOptions.NODE_PREFIX + name + ConsoleOptions.TOKEN_SUFFIX, String.class);
            built.put(name, new NodeClient(name, e.getValue(), connect, read, tokenFile, token));
            // never the token itself
            LOG.info("console node '{}' at {} (token {})", name, e.getValue(),
                    tokenFile.map(p -> "from " + p).orElse(token.isPresent() ? "configured" : "none: actions disabled"));
        }
        nodes = Map.copyOf(built);
    }

    /**
     * Parses {@code name=url,name=url}.
     *
     * @throws IllegalArgumentException naming the entry that is not {@code name=http(s)://host:port}
     */
    public static Map<String, URI> parse(String spec) {
        Map<String, URI> out = new LinkedHashMap<>();
        for (String entry : spec.split(",")) {
            if (entry.isBlank()) {
                continue;
            }
            int eq = entry.indexOf('=');
            String name = eq < 0 ? "" : entry.substring(0, eq).strip();
            String url = eq < 0 ? "" : entry.substring(eq + 1).strip();
            if (name.isEmpty() || !name.matches("[A-Za-z0-9_.-]+") || !(url.startsWith("http://") || url.startsWith("https://"))) {
                throw new IllegalArgumentException(ConsoleOptions.NODES + ": '" + entry.strip() + "' is not name=http://host:port"
                        + " (name of letters, digits, '.', '_' or '-'); e.g. local=http://127.0.0.1:8081");
            }
            if (out.put(name, URI.create(url.endsWith("/") ? url : url + "/")) != null) {
                throw new IllegalArgumentException(ConsoleOptions.NODES + ": node name '" + name + "' appears twice");
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(ConsoleOptions.NODES + " names no node; e.g. " + ConsoleOptions.NODES_DEFAULT);
        }
        return out;
    }

    /** @return every node, in configuration order */
    public List<NodeClient> all() {
        return new ArrayList<>(nodes.values());
    }

    /**
     * @return the node called {@code name}
     * @throws jakarta.ws.rs.NotFoundException naming the configured nodes when there is none of that name
     */
    public NodeClient get(String name) {
        NodeClient n = nodes.get(name);
        if (n == null) {
            throw new jakarta.ws.rs.NotFoundException("no node '" + name + "' in this console's configuration; configured: " + nodes.keySet());
        }
        return n;
    }
}
