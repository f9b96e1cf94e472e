package io.weir.rest.node;

import org.osgi.framework.BundleContext;

import java.nio.file.Path;

/**
 * Framework properties through which {@code weir node} configures the REST bundle (set by the
 * launcher from {@code --data-dir} and {@code --port}).
 */
public final class NodeProperties {
    /** The node's data directory (key, admin token; default base directory of submitted jobs). */
    public static final String DATA_DIR = "weir.node.data-dir";

    /**
     * The directory savepoint targets in REST requests must lie in (absolute); default
     * {@code <data-dir>/savepoints}.
     */
    public static final String SAVEPOINT_DIR = "weir.node.savepoint-dir";

    private NodeProperties() {
    }

    /**
     * @param context any bundle's context
     * @return the data directory: {@value #DATA_DIR}, else {@code ~/.weir/node} (absolute)
     */
    public static Path dataDir(BundleContext context) {
        String dir = context.getProperty(DATA_DIR);
        Path path = dir == null || dir.isBlank() ? Path.of(System.getProperty("user.home"), ".weir", "node") : Path.of(dir);
        return path.toAbsolutePath().normalize();
    }

    /**
     * @param context any bundle's context
     * @return the savepoint directory: {@value #SAVEPOINT_DIR}, else {@code savepoints/} under {@link #dataDir}
     *         (absolute, normalized)
     */
    public static Path savepointDir(BundleContext context) {
        String dir = context.getProperty(SAVEPOINT_DIR);
        Path path = dir == null || dir.isBlank() ? dataDir(context).resolve("savepoints") : Path.of(dir);
        return path.toAbsolutePath().normalize();
    }
}
