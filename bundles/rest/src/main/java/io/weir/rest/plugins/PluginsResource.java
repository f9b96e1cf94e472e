package io.weir.rest.plugins;

import io.weir.api.plugin.PluginSetting;
import io.weir.core.inventory.InstalledPlugin;
import io.weir.core.inventory.PluginInventory;
import io.weir.core.inventory.PluginType;
import io.weir.core.plugin.PluginRegistry;
import io.weir.rest.node.NodeJob;
import io.weir.rest.node.NodeJobs;
import io.weir.rest.node.NodeJobsComponent;
import io.weir.rest.resource.Views;
import io.weir.rest.security.BearerTokenFilter;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.container.ContainerRequestContext;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsExtensionSelect;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsResource;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * {@code /plugins}: list the plugins with their state, types, errors and the jobs using them; install
 * one by uploading its jar ({@code POST}); remove one ({@code DELETE /plugins/:bundle}). Mutations
 * need the bearer token like every other. Flink has no equivalent; docs/rest-api.md, "Plugins".
 *
 * <p>Thread-safe: stateless over thread-safe collaborators.
 */
@Component(service = PluginsResource.class, immediate = true)
@JakartarsResource
@JakartarsExtensionSelect("(osgi.jakartars.name=" + BearerTokenFilter.NAME + ")")
@Path("/plugins")
@Produces(MediaType.APPLICATION_JSON)
public final class PluginsResource {
    /** Framework property: the largest plugin upload accepted, bytes. */
    public static final String MAX_UPLOAD_PROPERTY = "weir.node.plugin-upload-max-bytes";
    /** Its default: 64 MiB. */
    public static final long DEFAULT_MAX_UPLOAD = 64L << 20;
    /** Longest wait after placing an upload for FileInstall to install and start it. */
    static final Duration INSTALL_WAIT = Duration.ofSeconds(20);
    static final long POLL_MS = 50;
    /** Media types a jar upload may declare (or none). */
    private static final Set<String> JAR_TYPES = Set.of("application/java-archive", "application/x-java-archive",
            "application/octet-stream", "application/zip");

    private final NodeJobs jobs;
    private final PluginRegistry registry;
    private final Supplier<PluginInventory> inventory;
    private final Function<Object, String> origin;
    private final Supplier<PluginDirectory> directory;
    private final Duration installWait;

    /**
     * @param context this bundle's context: FileInstall's directory and {@value #MAX_UPLOAD_PROPERTY}
     * @param node the node's jobs, plugins and plugin inventory
     */
    @Activate
    public PluginsResource(BundleContext context, @Reference NodeJobsComponent node) {
        this(node.jobs(), node.plugins(), node::inventory, PluginsResource::bundleOf, () -> directoryOf(context), INSTALL_WAIT);
    }

    /**
     * @param jobs the node's jobs
     * @param registry the installed plugin types
     * @param inventory the current plugin inventory
     * @param origin "symbolic-name version" of the bundle a factory comes from
     * @param directory the plugins directory; throws {@link PluginRequestException} (503) when there is none
     * @param installWait the longest wait for an upload to be installed
     */
    public PluginsResource(NodeJobs jobs, PluginRegistry registry, Supplier<PluginInventory> inventory, Function<Object, String> origin,
            Supplier<PluginDirectory> directory, Duration installWait) {
        this.jobs = jobs;
        this.registry = registry;
        this.inventory = inventory;
        this.origin = origin;
        this.directory = directory;
        this.installWait = installWait;
    }

    /** @return {@code GET /plugins}: every plugin file and plugin bundle, sorted by file then bundle name */
    @GET
    public PluginViews.Plugins list() {
        return new PluginViews.Plugins(inventory.get().plugins().stream().map(this::view).toList());
    }

    /**
     * Installs a plugin: the body is its jar. Checked before it is placed (a jar, an OSGi bundle, at least one plugin
     * factory component); then placed into {@code plugins/} and awaited (at most {@link #INSTALL_WAIT}) until FileInstall
     * has installed it and its types are served, or it failed.
     *
     * @param request the request (its body is read as a stream)
     * @param file the file name in {@code plugins/} (default {@code <bundle>-<version>.jar})
     * @param replace whether to replace an existing file of that name
     * @return 201 with the plugin ({@code state} ACTIVE, or its {@code error}); 202 with it if it has not settled within
     *         the wait
     * @throws PluginRequestException 400/409/413/415/503 (see {@link PluginDirectory#install})
     */
    @POST
    public Response install(@Context ContainerRequestContext request, @QueryParam("file") String file,
            @QueryParam("replace") boolean replace) {
        MediaType type = request.getMediaType();
        if (type != null && !JAR_TYPES.contains(type.getType() + "/" + type.getSubtype())) {
            throw new PluginRequestException(415, "a plugin upload is the jar itself: send it with Content-Type: "
                    + "application/java-archive (or application/octet-stream), not " + type);
        }
        PluginDirectory dir = directory.get();
        String length = request.getHeaderString(HttpHeaders.CONTENT_LENGTH);
        if (length != null && length.matches("\\d{1,18}") && Long.parseLong(length) > dir.maxBytes()) {
            throw new PluginRequestException(413, "the plugin (" + length + " bytes) is larger than the upload limit of "
                    + dir.maxBytes() + " bytes (" + MAX_UPLOAD_PROPERTY + "); copy it into plugins/ by hand or raise the limit");
        }
        PluginDirectory.Placed placed;
        try (InputStream body = request.getEntityStream()) {
            placed = dir.install(body, file, replace);
        } catch (IOException e) {
            throw new PluginRequestException(400, "cannot read the request body: " + e.getMessage());
        }
        InstalledPlugin settled = awaitInstalled(placed);
        if (settled == null) {
            InstalledPlugin pending = find(placed.fileName()).orElse(new InstalledPlugin(placed.jar().bundle(), placed.jar().version(),
                    "PENDING", placed.fileName(), placed.jar().types(), null));
            return Response.accepted(view(pending)).build();
        }
        return Response.status(Response.Status.CREATED).entity(view(settled)).build();
    }

    /**
     * Removes a plugin's file from {@code plugins/}; FileInstall then uninstalls the bundle.
     *
     * @param name the plugin's bundle symbolic name, or its file name
     * @return the removed plugin
     * @throws PluginRequestException 404 if no plugin file has that bundle or name
     */
    @DELETE
    @Path("{bundle}")
    public PluginViews.Removed remove(@PathParam("bundle") String name) {
        List<InstalledPlugin> matches = inventory.get().plugins().stream()
                .filter(p -> p.file() != null && (name.equals(p.bundle()) || name.equals(p.file()))).toList();
        if (matches.isEmpty()) {
            throw new PluginRequestException(404, "no plugin file in plugins/ has bundle or file name '" + name
                    + "'; GET /plugins lists them (bundles installed otherwise cannot be removed here)");
        }
        if (matches.size() > 1) {
            throw new PluginRequestException(409, "several plugin files have bundle '" + name + "': "
                    + matches.stream().map(InstalledPlugin::file).toList() + "; remove one by its file name");
        }
        InstalledPlugin p = matches.get(0);
        directory.get().remove(p.file());
        return new PluginViews.Removed(p.bundle(), p.version(), p.file());
    }

    /**
     * @return the plugin once it failed or is ACTIVE with every type served; null after the wait or when interrupted (the
     *         server stopping: the answer is then 202 with the current state)
     */
    private InstalledPlugin awaitInstalled(PluginDirectory.Placed placed) {
        long deadline = System.nanoTime() + installWait.toNanos();
        while (true) {
            Optional<InstalledPlugin> p = find(placed.fileName());
            if (p.isPresent() && (p.get().failed() || "ACTIVE".equals(p.get().state()) && served(p.get()))) {
                return p.get();
            }
            if (System.nanoTime() - deadline >= 0) {
                return null;
            }
            try {
                Thread.sleep(POLL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
    }

    private boolean served(InstalledPlugin p) {
        return !p.types().isEmpty() && registry.types().containsAll(p.types().stream().map(PluginType::name).toList());
    }

    private Optional<InstalledPlugin> find(String fileName) {
        return inventory.get().plugins().stream().filter(p -> fileName.equals(p.file())).findFirst();
    }

    private PluginViews.Plugin view(InstalledPlugin p) {
        List<PluginViews.Type> types = new ArrayList<>();
        for (PluginType t : p.types()) {
            types.add(new PluginViews.Type(t.name(), t.kind(), settingsIfServedBy(t, p)));
        }
        Set<String> names = new java.util.HashSet<>(p.types().stream().map(PluginType::name).toList());
        List<PluginViews.JobRef> using = new ArrayList<>();
        for (NodeJob j : jobs.list()) {
            if (!j.status().isGloballyTerminal() && j.graph().vertices().stream().anyMatch(v -> names.contains(v.type()))) {
                using.add(new PluginViews.JobRef(j.id(), j.name()));
            }
        }
        return new PluginViews.Plugin(p.bundle(), p.version(), p.state(), p.file(), types, p.error(), using);
    }

    /** The settings of the factory serving {@code t}, when it comes from plugin {@code p}. */
    private List<Views.Setting> settingsIfServedBy(PluginType t, InstalledPlugin p) {
        String self = p.bundle() + " " + p.version();
        List<PluginSetting> settings = Stream.of(
                registry.source(t.name()).filter(f -> self.equals(origin.apply(f))).map(f -> f.settings()),
                registry.operator(t.name()).filter(f -> self.equals(origin.apply(f))).map(f -> f.settings()),
                registry.sink(t.name()).filter(f -> self.equals(origin.apply(f))).map(f -> f.settings()))
                .flatMap(Optional::stream).findFirst().orElse(List.of());
        return settings.stream().map(s -> new Views.Setting(s.name(), s.type(), s.defaultValue(), s.required(), s.description())).toList();
    }

    private static String bundleOf(Object factory) {
        Bundle b = FrameworkUtil.getBundle(factory.getClass());
        return b == null ? factory.getClass().getName() : b.getSymbolicName() + " " + b.getVersion();
    }

    /** FileInstall's plugins directory (the watched directory named {@code plugins}, else the first) and the upload limit. */
    static PluginDirectory directoryOf(BundleContext context) {
        String dirs = context.getProperty("felix.fileinstall.dir");
        List<java.nio.file.Path> watched = dirs == null ? List.of()
                : Stream.of(dirs.split(",")).map(String::strip).filter(s -> !s.isEmpty()).map(java.nio.file.Path::of).toList();
        java.nio.file.Path plugins = watched.stream().filter(d -> d.getFileName() != null && d.getFileName().toString().equals("plugins"))
                .findFirst().or(() -> watched.stream().findFirst())
                .orElseThrow(() -> new PluginRequestException(503, "this node has no plugins directory (felix.fileinstall.dir is not set)"));
        String max = context.getProperty(MAX_UPLOAD_PROPERTY);
        long maxBytes;
        try {
            maxBytes = max == null || max.isBlank() ? DEFAULT_MAX_UPLOAD : Long.parseLong(max.strip());
        } catch (NumberFormatException e) {
            throw new PluginRequestException(503, MAX_UPLOAD_PROPERTY + " must be a number of bytes, got '" + max + "'");
        }
        return new PluginDirectory(plugins, maxBytes);
    }
}
