package io.weir.core.inventory;

import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.zip.ZipException;

/**
 * What a plugin jar declares, read from the file without installing it: its bundle symbolic name and
 * version from the manifest, and its plugin types from the Declarative Services XML its
 * {@code Service-Component} header names (components that provide {@code SourceFactory},
 * {@code OperatorFactory} or {@code SinkFactory} with a {@value #TYPE_PROPERTY} property).
 *
 * @param bundle {@code Bundle-SymbolicName} without its directives
 * @param version {@code Bundle-Version}, {@code 0.0.0} when absent
 * @param types the declared plugin types, sorted by name; empty if none
 */
public record PluginJar(String bundle, String version, List<PluginType> types) {
    /** The service property naming a factory's type. */
    public static final String TYPE_PROPERTY = "weir.plugin.type";
    /** Factory interface name to kind. */
    public static final Map<String, String> KINDS = Map.of("io.weir.api.plugin.SourceFactory", "source",
            "io.weir.api.plugin.OperatorFactory", "operator", "io.weir.api.plugin.SinkFactory", "sink");

    /** Reads one entry of a bundle or jar by path, or returns null when it has none. */
    @FunctionalInterface
    public interface Entries {
        /**
         * @param path an entry's path, e.g. {@code OSGI-INF/x.xml}
         * @return its content (the caller closes it), or null
         * @throws IOException if it cannot be read
         */
        InputStream open(String path) throws IOException;
    }

    /** @throws NullPointerException if {@code bundle} or {@code version} is null */
    public PluginJar {
        java.util.Objects.requireNonNull(bundle, "bundle");
        java.util.Objects.requireNonNull(version, "version");
        types = List.copyOf(types);
    }

    /**
     * @param jar the file (its name is used in messages)
     * @return what it declares
     * @throws InvalidPluginException if it is not a zip file, has no manifest or no {@code Bundle-SymbolicName}, or a
     *         component XML it names is missing or malformed
     * @throws IOException if the file cannot be read
     */
    public static PluginJar read(Path jar) throws InvalidPluginException, IOException {
        String name = jar.getFileName().toString();
        JarFile file;
        try {
            file = new JarFile(jar.toFile());
        } catch (ZipException e) {
            throw new InvalidPluginException(name + " is not a jar (zip) file: " + e.getMessage()
                    + "; plugins are OSGi bundle jars: replace or remove it");
        }
        try (file) {
            Manifest manifest = file.getManifest();
            if (manifest == null) {
                throw new InvalidPluginException(name + " has no META-INF/MANIFEST.MF: a plain jar, not an OSGi bundle; "
                        + "build it as a bundle (bnd-maven-plugin) with a Bundle-SymbolicName");
            }
            Attributes main = manifest.getMainAttributes();
            String symbolicName = main.getValue("Bundle-SymbolicName");
            if (symbolicName == null || symbolicName.isBlank()) {
                throw new InvalidPluginException(name + " has no Bundle-SymbolicName in its manifest: not an OSGi bundle; "
                        + "build it as a bundle (bnd-maven-plugin)");
            }
            String version = main.getValue("Bundle-Version");
            List<String> entryNames = file.stream().map(JarEntry::getName).toList();
            List<PluginType> types = declaredTypes(name, main.getValue("Service-Component"), entryNames, path -> {
                JarEntry e = file.getJarEntry(path);
                return e == null ? null : file.getInputStream(e);
            });
            return new PluginJar(symbolicName.split(";")[0].strip(), version == null ? "0.0.0" : version.strip(), types);
        }
    }

    /**
     * @param name the bundle or file, for messages
     * @param header the {@code Service-Component} header (comma-separated paths, which may end in a {@code *} glob);
     *        null for none
     * @param entryNames every entry path of the bundle, to expand globs
     * @param entries reads an entry
     * @return the plugin types its components declare, sorted by name
     * @throws InvalidPluginException if a named XML is missing (no glob) or not well-formed
     * @throws IOException if an entry cannot be read
     */
    public static List<PluginType> declaredTypes(String name, String header, List<String> entryNames, Entries entries)
            throws InvalidPluginException, IOException {
        if (header == null || header.isBlank()) {
            return List.of();
        }
        TreeSet<String> paths = new TreeSet<>();
        for (String raw : header.split(",")) {
            String path = raw.split(";")[0].strip();
            if (path.contains("*")) {
                PathMatcher glob = FileSystems.getDefault().getPathMatcher("glob:" + path);
                entryNames.stream().filter(e -> glob.matches(Path.of(e))).forEach(paths::add);
            } else if (!path.isEmpty()) {
                paths.add(path);
            }
        }
        List<PluginType> types = new ArrayList<>();
        for (String path : paths) {
            try (InputStream in = entries.open(path)) {
                if (in == null) {
                    throw new InvalidPluginException(name + ": Service-Component names " + path + ", which is not in the jar");
                }
                types.addAll(typesOf(parse(name, path, in)));
            }
        }
        types.sort(java.util.Comparator.comparing(PluginType::name).thenComparing(PluginType::kind));
        return Collections.unmodifiableList(types);
    }

    private static Element parse(String name, String path, InputStream in) throws InvalidPluginException, IOException {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            DocumentBuilder b = f.newDocumentBuilder();
            b.setErrorHandler(null);
            return b.parse(in).getDocumentElement();
        } catch (SAXException e) {
            throw new InvalidPluginException(name + ": " + path + " is not well-formed XML: " + e.getMessage());
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the JDK's XML parser cannot be configured: " + e.getMessage(), e);
        }
    }

    /** Components may be the root or children of any root element (DS allows both). */
    private static List<PluginType> typesOf(Element root) {
        List<PluginType> types = new ArrayList<>();
        List<Element> components = "component".equals(local(root)) ? List.of(root) : children(root, "component");
        for (Element c : components) {
            String type = null;
            for (Element p : children(c, "property")) {
                if (TYPE_PROPERTY.equals(p.getAttribute("name"))) {
                    type = p.hasAttribute("value") ? p.getAttribute("value").strip() : p.getTextContent().strip();
                }
            }
            for (Element s : children(c, "service")) {
                for (Element provide : children(s, "provide")) {
                    String kind = KINDS.get(provide.getAttribute("interface"));
                    if (kind != null && type != null && !type.isEmpty()) {
                        types.add(new PluginType(type, kind));
                    }
                }
            }
        }
        return types;
    }

    private static List<Element> children(Element parent, String localName) {
        List<Element> out = new ArrayList<>();
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            if (nodes.item(i).getNodeType() == Node.ELEMENT_NODE && localName.equals(local((Element) nodes.item(i)))) {
                out.add((Element) nodes.item(i));
            }
        }
        return out;
    }

    private static String local(Element e) {
        return e.getLocalName() != null ? e.getLocalName() : e.getTagName();
    }
}
