package io.weir.rest.plugins;

import io.weir.core.inventory.InvalidPluginException;
import io.weir.core.inventory.PluginJar;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.regex.Pattern;

/**
 * Places uploaded plugin jars into FileInstall's plugins directory and removes them. An upload is
 * streamed into a staging file outside the watched directory ({@code <plugins>/../.plugins-staging},
 * on the same file system), counted against the size limit, checked ({@link PluginJar}: a jar, an
 * OSGi manifest with a {@code Bundle-SymbolicName}, at least one component providing a plugin
 * factory), and only then moved atomically into the directory, so FileInstall never sees a partial
 * or refused file.
 *
 * <p>Thread-safe: each call works on its own staging file; two uploads of the same name race only on
 * the final move, and the later one wins (as with two copies by hand).
 */
public final class PluginDirectory {
    private static final Logger LOG = LoggerFactory.getLogger(PluginDirectory.class);
    /** A plugin file name: letters, digits, '.', '_', '-', ending in .jar, not starting with '.'. */
    private static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]{0,150}\\.jar");
    private static final int BUFFER = 64 * 1024;

    private final Path directory;
    private final long maxBytes;

    /**
     * @param directory FileInstall's plugins directory (absolute)
     * @param maxBytes the largest upload accepted, bytes (at least 1)
     * @throws IllegalArgumentException if {@code maxBytes} is below 1
     */
    public PluginDirectory(Path directory, long maxBytes) {
        if (maxBytes < 1) {
            throw new IllegalArgumentException("the plugin upload limit must be at least 1 byte, got " + maxBytes);
        }
        this.directory = directory.toAbsolutePath().normalize();
        this.maxBytes = maxBytes;
    }

    /** @return the plugins directory */
    public Path directory() {
        return directory;
    }

    /** @return the upload limit, bytes */
    public long maxBytes() {
        return maxBytes;
    }

    /**
     * Checks a plugin file name: a plain file name (no directory, no {@code ..}) ending in {@code .jar}.
     *
     * @param fileName the name a client gave
     * @return the file's path inside the plugins directory
     * @throws PluginRequestException (400) if it is not such a name
     */
    public Path resolve(String fileName) {
        if (fileName == null || !FILE_NAME.matcher(fileName).matches()) {
            throw new PluginRequestException(400, "plugin file name '" + fileName + "' is not allowed: give a plain file name of "
                    + "letters, digits, '.', '_' and '-' ending in .jar (no directory), e.g. ?file=my-plugin-1.0.0.jar");
        }
        Path target = directory.resolve(fileName).normalize();
        if (!target.getParent().equals(directory)) {
            throw new PluginRequestException(400, "plugin file name '" + fileName + "' leaves the plugins directory");
        }
        return target;
    }

    /**
     * Stages, checks and places an uploaded jar.
     *
     * @param body the request body (not closed here)
     * @param fileName the file name in the plugins directory, or null for {@code <Bundle-SymbolicName>-<Bundle-Version>.jar}
     * @param replace whether an existing file of that name may be replaced (an upgrade)
     * @return what the placed jar declares, and its file name
     * @throws PluginRequestException 413 if the body is larger than {@link #maxBytes}, 400 if it is not a plugin bundle
     *         or the name is not allowed, 409 if the file exists and {@code replace} is false, 503 if the directory
     *         cannot be written
     */
    public Placed install(InputStream body, String fileName, boolean replace) {
        if (fileName != null) {
            resolve(fileName);
        }
        Path staging = directory.resolveSibling(".plugins-staging");
        Path staged;
        try {
            Files.createDirectories(staging);
            staged = Files.createTempFile(staging, "upload-", ".jar");
        } catch (IOException e) {
            throw new PluginRequestException(503, "cannot create a staging file in " + staging + ": " + e.getMessage()
                    + "; the node needs write access next to its plugins directory");
        }
        try {
            copyLimited(body, staged);
            PluginJar jar;
            try {
                jar = PluginJar.read(staged);
            } catch (InvalidPluginException e) {
                throw new PluginRequestException(400, e.getMessage().replace(staged.getFileName().toString(),
                        fileName == null ? "the upload" : fileName));
            }
            if (jar.types().isEmpty()) {
                throw new PluginRequestException(400, "bundle " + jar.bundle() + " " + jar.version() + " declares no plugin: no "
                        + "Declarative Services component in its Service-Component header provides a SourceFactory, OperatorFactory "
                        + "or SinkFactory with a weir.plugin.type property (docs/plugins.md)");
            }
            String name = fileName != null ? fileName : jar.bundle() + "-" + jar.version() + ".jar";
            Path target = resolve(name);
            if (!replace && Files.exists(target)) {
                throw new PluginRequestException(409, "plugins/" + name + " exists: remove it first (DELETE /plugins/" + jar.bundle()
                        + ") or upload with ?replace=true to replace it");
            }
            move(staged, target);
            LOG.info("Plugin {} {} placed as {}", jar.bundle(), jar.version(), target);
            return new Placed(jar, name);
        } catch (IOException e) {
            throw new PluginRequestException(503, "cannot write the plugin into " + directory + ": " + e.getMessage());
        } finally {
            try {
                Files.deleteIfExists(staged);
            } catch (IOException e) {
                LOG.warn("Cannot delete the staging file {}: {}", staged, e.getMessage());
            }
        }
    }

    /**
     * Deletes a plugin file; FileInstall then uninstalls its bundle.
     *
     * @param fileName its name in the plugins directory
     * @throws PluginRequestException 400 for a bad name, 404 if there is no such file, 503 if it cannot be deleted
     */
    public void remove(String fileName) {
        Path target = resolve(fileName);
        try {
            if (!Files.deleteIfExists(target)) {
                throw new PluginRequestException(404, "no plugin file plugins/" + fileName + "; GET /plugins lists them");
            }
            LOG.info("Plugin file {} removed", target);
        } catch (IOException e) {
            throw new PluginRequestException(503, "cannot delete " + target + ": " + e.getMessage());
        }
    }

    private void copyLimited(InputStream body, Path staged) throws IOException {
        long total = 0;
        byte[] buffer = new byte[BUFFER];
        try (OutputStream out = Files.newOutputStream(staged)) {
            int n;
            while (body != null && (n = body.read(buffer)) >= 0) {
                total += n;
                if (total > maxBytes) {
                    throw new PluginRequestException(413, "the plugin is larger than the upload limit of " + maxBytes
                            + " bytes (weir.node.plugin-upload-max-bytes); copy it into plugins/ by hand or raise the limit");
                }
                out.write(buffer, 0, n);
            }
        }
        if (total == 0) {
            throw new PluginRequestException(400, "the request body is empty: send the plugin jar as the body "
                    + "(Content-Type: application/java-archive)");
        }
    }

    private static void move(Path staged, Path target) throws IOException {
        try {
            Files.move(staged, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            // staging is a sibling of the plugins directory, so this means another file system is mounted there
            Files.move(staged, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /**
     * A jar placed in the plugins directory.
     *
     * @param jar what it declares
     * @param fileName its file name there
     */
    public record Placed(PluginJar jar, String fileName) {
    }
}
