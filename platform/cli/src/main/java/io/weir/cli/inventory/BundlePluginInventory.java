package io.weir.cli.inventory;

import io.weir.core.inventory.InstalledPlugin;
import io.weir.core.inventory.InvalidPluginException;
import io.weir.core.inventory.PluginInventory;
import io.weir.core.inventory.PluginJar;
import io.weir.core.inventory.PluginType;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.wiring.BundleRequirement;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.framework.wiring.FrameworkWiring;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongPredicate;
import java.util.stream.Stream;

/**
 * The {@link PluginInventory} of a running framework: the {@code *.jar} files of FileInstall's
 * directories ({@value #FILEINSTALL_DIR}) matched to bundles by location, every other bundle that
 * declares plugin factories, their types (from Declarative Services' descriptions, the bundles' DS
 * XML and registered services' {@value PluginJar#TYPE_PROPERTY}), and each one's error: not a jar
 * or not a bundle (read from the file), imports no bundle exports (asked of the framework's
 * resolver, once no plugin file is left to install), an activator that failed ({@code startFailed}), a
 * component that failed to activate (SCR's DTO: its innermost cause in one line here, the whole stack
 * trace once at INFO level), or a type another bundle
 * declares too (reported, never resolved here).
 *
 * <p>Thread-safe: every call reads the framework afresh; the set of failures already logged is concurrent.
 */
public final class BundlePluginInventory implements PluginInventory {
    private static final Logger LOG = LoggerFactory.getLogger(BundlePluginInventory.class);
    /** Framework property FileInstall reads its directories from (comma-separated). */
    public static final String FILEINSTALL_DIR = "felix.fileinstall.dir";

    private final BundleContext context;
    private final ServiceComponentRuntime scr;
    /** Whether the bundle of this id failed in its activator since it was last installed or updated. */
    private final LongPredicate startFailed;
    /** Component failures whose stack trace was logged already (bundle id, component name, failure). */
    private final Set<String> logged = ConcurrentHashMap.newKeySet();

    /**
     * @param context any bundle's context (reads every bundle)
     * @param scr Declarative Services' runtime
     * @param startFailed whether a bundle's activator threw ({@link StartFailures})
     */
    public BundlePluginInventory(BundleContext context, ServiceComponentRuntime scr, LongPredicate startFailed) {
        this.context = context;
        this.scr = scr;
        this.startFailed = startFailed;
    }

    private List<Path> watchedDirectories() {
        String dirs = context.getProperty(FILEINSTALL_DIR);
        if (dirs == null) {
            return List.of();
        }
        return Stream.of(dirs.split(",")).map(String::strip).filter(s -> !s.isEmpty()).map(Path::of).toList();
    }

    @Override
    public List<InstalledPlugin> plugins() {
        return snapshot().stream().map(Entry::plugin).toList();
    }

    /** @return every entry with whether it is settled: started and registered, or failed */
    public List<Entry> snapshot() {
        Bundle[] bundles = context.getBundles();
        Map<Long, List<ComponentDescriptionDTO>> descriptions = new HashMap<>();
        for (ComponentDescriptionDTO d : scr.getComponentDescriptionDTOs()) {
            descriptions.computeIfAbsent(d.bundle.id, k -> new ArrayList<>()).add(d);
        }
        List<Entry> entries = new ArrayList<>();
        Map<Path, Bundle> installed = new LinkedHashMap<>();
        Set<Long> matched = new java.util.HashSet<>();
        boolean filesPending = false;
        for (Path file : pluginFiles()) {
            Bundle b = bundleAt(file, bundles);
            installed.put(file, b);
            if (b != null) {
                matched.add(b.getBundleId());
            } else {
                filesPending |= !fromFile(file).settled();
            }
        }
        for (Map.Entry<Path, Bundle> f : installed.entrySet()) {
            Bundle b = f.getValue();
            entries.add(b == null ? fromFile(f.getKey())
                    : fromBundle(b, f.getKey().getFileName().toString(), descriptions.getOrDefault(b.getBundleId(), List.of()), filesPending));
        }
        for (Bundle b : bundles) {
            if (b.getBundleId() == 0 || matched.contains(b.getBundleId())) {
                continue;
            }
            Entry e = fromBundle(b, null, descriptions.getOrDefault(b.getBundleId(), List.of()), filesPending);
            if (!e.plugin().types().isEmpty()) {
                entries.add(e);
            }
        }
        return withConflicts(entries);
    }

    @Override
    public Optional<String> whyUnavailable(String type) {
        for (InstalledPlugin p : plugins()) {
            if (p.failed() && p.types().stream().anyMatch(t -> t.name().equals(type))) {
                return Optional.of("'" + type + "' is provided by plugin " + p.describe() + ", whose " + p.error());
            }
        }
        return Optional.empty();
    }

    private List<Path> pluginFiles() {
        List<Path> files = new ArrayList<>();
        for (Path dir : watchedDirectories()) {
            try (Stream<Path> s = Files.list(dir)) {
                s.filter(p -> p.getFileName().toString().endsWith(".jar") && !Files.isDirectory(p)).forEach(files::add);
            } catch (IOException e) {
                // no such directory: nothing comes from it
            }
        }
        files.sort(Comparator.comparing(p -> p.getFileName().toString()));
        return files;
    }

    /** FileInstall installs a file at its {@code file:} URL; match by the path's end, as the URL's form varies. */
    private static Bundle bundleAt(Path file, Bundle[] bundles) {
        String name = file.getFileName().toString();
        for (Bundle b : bundles) {
            String location = b.getLocation();
            if (location != null && (location.endsWith("/" + name) || location.endsWith("\\" + name))) {
                return b;
            }
        }
        return null;
    }

    /** A file FileInstall has not installed: either it cannot be a bundle (an error now) or it is still to come. */
    private static Entry fromFile(Path file) {
        String name = file.getFileName().toString();
        try {
            PluginJar jar = PluginJar.read(file);
            return new Entry(new InstalledPlugin(jar.bundle(), jar.version(), "PENDING", name, jar.types(), null), false);
        } catch (InvalidPluginException e) {
            return new Entry(new InstalledPlugin(null, null, "FAILED", name, List.of(), e.getMessage()), true);
        } catch (IOException e) {
            // being written or replaced right now: FileInstall will look again
            return new Entry(new InstalledPlugin(null, null, "PENDING", name, List.of(), null), false);
        }
    }

    /**
     * @param filesPending whether a plugin file is still to be installed: it may export what an INSTALLED bundle lacks
     *        (FileInstall installs a directory's files one by one), so a missing package is no error yet
     */
    private Entry fromBundle(Bundle b, String file, List<ComponentDescriptionDTO> components, boolean filesPending) {
        List<PluginType> types = typesOf(b, components);
        boolean fragment = b.getHeaders("").get(Constants.FRAGMENT_HOST) != null;
        String error = null;
        boolean settled;
        switch (b.getState()) {
            case Bundle.INSTALLED -> {
                List<String> missing = filesPending ? List.of() : missingPackages(b);
                error = missing.isEmpty() ? null
                        : "bundle does not resolve: no bundle exports " + (missing.size() == 1 ? "package " : "packages ")
                            + String.join(", ", missing) + " (Import-Package); install a bundle that exports it or make the import optional";
                settled = error != null;
            }
            case Bundle.RESOLVED -> {
                if (!fragment && startFailed.test(b.getBundleId())) {
                    error = "bundle failed to start: its activator threw (the stack trace is in the log)";
                }
                settled = fragment || error != null;
            }
            case Bundle.ACTIVE -> {
                error = componentErrors(b, components);
                boolean declaresComponents = b.getHeaders("").get("Service-Component") != null;
                settled = !declaresComponents || b.getRegisteredServices() != null || error != null;
            }
            default -> settled = false;
        }
        return new Entry(new InstalledPlugin(b.getSymbolicName(), b.getVersion().toString(), stateName(b.getState()), file,
                types, error), settled);
    }

    /** Types from SCR's descriptions (ACTIVE bundles), else the bundle's DS XML, plus registered factory services. */
    private List<PluginType> typesOf(Bundle b, List<ComponentDescriptionDTO> components) {
        TreeSet<PluginType> types = new TreeSet<>(Comparator.comparing(PluginType::name).thenComparing(PluginType::kind));
        for (ComponentDescriptionDTO d : components) {
            Object type = d.properties == null ? null : d.properties.get(PluginJar.TYPE_PROPERTY);
            for (String i : d.serviceInterfaces) {
                String kind = PluginJar.KINDS.get(i);
                if (kind != null && type instanceof String t) {
                    types.add(new PluginType(t, kind));
                }
            }
        }
        String header = b.getState() == Bundle.UNINSTALLED ? null : b.getHeaders("").get("Service-Component");
        if (components.isEmpty() && header != null) {
            // not started, so SCR has not read its components: read the XML its header names (globs only list entries)
            try {
                List<String> entries = new ArrayList<>();
                var urls = header.contains("*") ? b.findEntries("/", "*.xml", true) : null;
                while (urls != null && urls.hasMoreElements()) {
                    entries.add(urls.nextElement().getPath().replaceFirst("^/", ""));
                }
                types.addAll(PluginJar.declaredTypes(b.getSymbolicName(), header, entries, path -> {
                    var url = b.getEntry(path);
                    return url == null ? null : url.openStream();
                }));
            } catch (InvalidPluginException | IOException | IllegalStateException e) {
                LOG.debug("Cannot read the component XML of bundle {}: {}", b.getSymbolicName(), e.getMessage());
            }
        }
        ServiceReference<?>[] registered = b.getState() == Bundle.UNINSTALLED ? null : b.getRegisteredServices();
        if (registered != null) {
            for (ServiceReference<?> r : registered) {
                Object type = r.getProperty(PluginJar.TYPE_PROPERTY);
                if (r.getProperty(Constants.OBJECTCLASS) instanceof String[] classes && type instanceof String t) {
                    for (String c : classes) {
                        String kind = PluginJar.KINDS.get(c);
                        if (kind != null) {
                            types.add(new PluginType(t, kind));
                        }
                    }
                }
            }
        }
        return List.copyOf(types);
    }

    /** @return packages of mandatory imports that no bundle in the framework exports (what the resolver lacks) */
    private List<String> missingPackages(Bundle b) {
        BundleRevision revision = b.adapt(BundleRevision.class);
        FrameworkWiring wiring = context.getBundle(Constants.SYSTEM_BUNDLE_LOCATION).adapt(FrameworkWiring.class);
        List<String> missing = new ArrayList<>();
        if (revision == null || wiring == null) {
            return missing;
        }
        for (BundleRequirement r : revision.getDeclaredRequirements(BundleRevision.PACKAGE_NAMESPACE)) {
            boolean optional = "optional".equals(r.getDirectives().get("resolution"));
            if (!optional && wiring.findProviders(r).isEmpty()) {
                missing.add(packageOf(r.getDirectives().get("filter")));
            }
        }
        return missing;
    }

    /** @return the package name in a requirement filter like {@code (&(osgi.wiring.package=a.b)(version>=1.0))} */
    static String packageOf(String filter) {
        if (filter == null) {
            return "?";
        }
        String key = BundleRevision.PACKAGE_NAMESPACE + "=";
        int i = filter.indexOf(key);
        if (i < 0) {
            return filter;
        }
        int end = filter.indexOf(')', i);
        String name = filter.substring(i + key.length(), end < 0 ? filter.length() : end);
        String version = versionOf(filter);
        return version == null ? name : name + " " + version;
    }

    private static String versionOf(String filter) {
        int i = filter.indexOf("(version>=");
        if (i < 0) {
            return null;
        }
        int end = filter.indexOf(')', i);
        return end < 0 ? null : ">=" + filter.substring(i + "(version>=".length(), end);
    }

    /** @return one line per failed or unsatisfied component of the bundle, joined; null if none */
    private String componentErrors(Bundle b, List<ComponentDescriptionDTO> components) {
        List<String> errors = new ArrayList<>();
        for (ComponentDescriptionDTO d : components) {
            for (ComponentConfigurationDTO c : scr.getComponentConfigurationDTOs(d)) {
                if (c.state == ComponentConfigurationDTO.FAILED_ACTIVATION) {
                    String cause = causeOf(c.failure);
                    if (logged.add(b.getBundleId() + "/" + d.name + "/" + c.failure)) {
                        // the one-line cause is a WARN of FailureReporter; the whole trace only on request (a node's SCR logs it too)
                        LOG.info("Plugin {} {}: component {} failed to activate:\n{}", b.getSymbolicName(), b.getVersion(), d.name,
                                c.failure);
                    }
                    errors.add("component " + d.name + " failed to activate: " + cause);
                }
            }
        }
        return errors.isEmpty() ? null : String.join("; ", errors);
    }

    /** The innermost "Caused by:" line of a stack trace, else its first line: the exception a plugin author threw. */
    static String causeOf(String trace) {
        if (trace == null) {
            return "(no failure recorded)";
        }
        String cause = trace.lines().findFirst().orElse("").strip();
        for (String line : (Iterable<String>) trace.lines()::iterator) {
            String s = line.strip();
            if (s.startsWith("Caused by: ")) {
                cause = s.substring("Caused by: ".length());
            }
        }
        return cause;
    }

    /** Marks a type declared by bundles of different symbolic names on each of them. */
    private static List<Entry> withConflicts(List<Entry> entries) {
        Map<String, List<Entry>> byType = new TreeMap<>();
        for (Entry e : entries) {
            if (e.plugin().bundle() != null && !"UNINSTALLED".equals(e.plugin().state())) {
                for (PluginType t : e.plugin().types()) {
                    byType.computeIfAbsent(t.name(), k -> new ArrayList<>()).add(e);
                }
            }
        }
        Map<Entry, List<String>> conflicts = new LinkedHashMap<>();
        for (Map.Entry<String, List<Entry>> t : byType.entrySet()) {
            Set<String> names = new TreeSet<>();
            t.getValue().forEach(e -> names.add(e.plugin().bundle()));
            if (names.size() < 2) {
                continue;
            }
            for (Entry e : t.getValue()) {
                List<String> others = t.getValue().stream().filter(o -> !o.plugin().bundle().equals(e.plugin().bundle()))
                        .map(o -> o.plugin().describe()).toList();
                conflicts.computeIfAbsent(e, k -> new ArrayList<>()).add("type '" + t.getKey() + "' is also declared by "
                        + String.join(", ", others));
            }
        }
        if (conflicts.isEmpty()) {
            return Collections.unmodifiableList(entries);
        }
        List<Entry> out = new ArrayList<>();
        for (Entry e : entries) {
            List<String> c = conflicts.get(e);
            if (c == null) {
                out.add(e);
                continue;
            }
            InstalledPlugin p = e.plugin();
            String conflict = "conflict: " + String.join("; ", c) + "; a type must come from one bundle: remove one of them";
            String error = p.error() == null ? conflict : p.error() + "; " + conflict;
            out.add(new Entry(new InstalledPlugin(p.bundle(), p.version(), p.state(), p.file(), p.types(), error), e.settled()));
        }
        return Collections.unmodifiableList(out);
    }

    private static String stateName(int state) {
        return switch (state) {
            case Bundle.INSTALLED -> "INSTALLED";
            case Bundle.RESOLVED -> "RESOLVED";
            case Bundle.STARTING -> "STARTING";
            case Bundle.STOPPING -> "STOPPING";
            case Bundle.ACTIVE -> "ACTIVE";
            case Bundle.UNINSTALLED -> "UNINSTALLED";
            default -> String.valueOf(state);
        };
    }

    /**
     * A plugin with whether it is settled: nothing more will happen to it on its own (it is started and its
     * components registered, or it failed), so waiting for its types is pointless.
     *
     * @param plugin what the inventory reports
     * @param settled whether it is settled
     */
    public record Entry(InstalledPlugin plugin, boolean settled) {
    }
}
