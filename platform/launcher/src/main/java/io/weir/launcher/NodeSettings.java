package io.weir.launcher;

import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a node listens and keeps its files ({@code weir node --port N --data-dir DIR}).
 *
 * @param host the address the REST API binds, {@value #HOST}
 * @param port the REST API's TCP port, 1..65535 (default {@value #DEFAULT_PORT})
 * @param dataDir the node's data directory (absolute): its key and admin token under {@code security/}
 */
public record NodeSettings(String host, int port, Path dataDir) {
    /** The only bind address this round: the node is reachable from this machine only. */
    public static final String HOST = "127.0.0.1";
    /** Flink's REST port. */
    public static final int DEFAULT_PORT = 8081;
    /** Framework property naming the data directory for the REST bundle ({@code io.weir.rest.node.NodeProperties}). */
    static final String DATA_DIR_PROPERTY = "weir.node.data-dir";

    /**
     * @throws LauncherException (exit 2) for a port outside 1..65535 or a relative data directory
     */
    public NodeSettings {
        if (port < 1 || port > 65535) {
            throw new LauncherException(ExitCodes.USAGE, "--port must be 1..65535, got " + port);
        }
        if (dataDir == null || !dataDir.isAbsolute()) {
            throw new LauncherException(ExitCodes.USAGE, "the data directory must be an absolute path, got " + dataDir);
        }
    }

    /** @return the REST API's base URL, e.g. {@code http://127.0.0.1:8081} */
    public URI url() {
        return URI.create("http://" + host + ":" + port);
    }

    /** @return the framework properties that configure Felix HTTP and the REST bundle */
    Map<String, String> frameworkProperties() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("org.apache.felix.http.host", host);
        p.put("org.osgi.service.http.port", String.valueOf(port));
        p.put(DATA_DIR_PROPERTY, dataDir.toString());
        return p;
    }

    /** @return the admin token's file under the data directory */
    public Path tokenFile() {
        return tokenFile(dataDir);
    }

    /** @return where a node with data directory {@code dataDir} writes its admin token */
    public static Path tokenFile(Path dataDir) {
        return dataDir.resolve("security").resolve("admin.token");
    }
}
