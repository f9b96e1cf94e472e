package io.weir.core.inventory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Reading a plugin jar without installing it: what is not a bundle is named as such, and DS XML gives the types. */
class PluginJarTest {
    private static final String DS = "http://www.osgi.org/xmlns/scr/v1.3.0";

    @TempDir
    Path dir;

    @Test
    void aTextFileNamedJarIsNotAJar() throws IOException {
        Path x = Files.writeString(dir.resolve("x.jar"), "hello, I am not a jar");

        assertThatThrownBy(() -> PluginJar.read(x)).isInstanceOf(InvalidPluginException.class)
                .hasMessageStartingWith("x.jar is not a jar (zip) file");
    }

    @Test
    void aJarWithoutManifestIsNotABundle() throws IOException {
        Path plain = dir.resolve("plain.jar");
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(plain))) {
            zip.putNextEntry(new ZipEntry("a/B.class"));
            zip.write(new byte[] {1, 2, 3});
        }

        assertThatThrownBy(() -> PluginJar.read(plain)).isInstanceOf(InvalidPluginException.class)
                .hasMessageStartingWith("plain.jar has no META-INF/MANIFEST.MF: a plain jar, not an OSGi bundle");
    }

    @Test
    void aManifestWithoutSymbolicNameIsNotABundle() throws IOException {
        Path jar = jar("nobsn.jar", Map.of("Implementation-Title", "x"), Map.of());

        assertThatThrownBy(() -> PluginJar.read(jar)).isInstanceOf(InvalidPluginException.class)
                .hasMessageStartingWith("nobsn.jar has no Bundle-SymbolicName");
    }

    @Test
    void typesComeFromComponentsProvidingAFactoryWithATypeProperty() throws IOException, InvalidPluginException {
        Map<String, String> entries = new LinkedHashMap<>();
        entries.put("OSGI-INF/a.xml", component("a.Op", "io.weir.api.plugin.OperatorFactory",
                "<property name=\"weir.plugin.type\" value=\"boom-op\"/>"));
        entries.put("OSGI-INF/b.xml", component("b.Sink", "io.weir.api.plugin.SinkFactory",
                "<property name=\"weir.plugin.type\" type=\"String\">out-2pc</property>"));
        entries.put("OSGI-INF/c.xml", component("c.Other", "java.lang.Runnable",
                "<property name=\"weir.plugin.type\" value=\"not-a-plugin\"/>"));
        Path jar = jar("good.jar", Map.of("Bundle-SymbolicName", "boom;singleton:=true", "Bundle-Version", "1.0.0",
                "Service-Component", "OSGI-INF/*.xml"), entries);

        PluginJar read = PluginJar.read(jar);

        assertThat(read.bundle()).isEqualTo("boom");
        assertThat(read.version()).isEqualTo("1.0.0");
        assertThat(read.types()).containsExactly(new PluginType("boom-op", "operator"), new PluginType("out-2pc", "sink"));
    }

    @Test
    void aBundleWithoutComponentsDeclaresNoTypes() throws IOException, InvalidPluginException {
        Path jar = jar("lib.jar", Map.of("Bundle-SymbolicName", "lib"), Map.of());

        assertThat(PluginJar.read(jar).types()).isEmpty();
        assertThat(PluginJar.read(jar).version()).isEqualTo("0.0.0");
    }

    @Test
    void aComponentXmlTheHeaderNamesButTheJarLacksIsAnError() throws IOException {
        Path jar = jar("broken.jar", Map.of("Bundle-SymbolicName", "broken", "Service-Component", "OSGI-INF/gone.xml"), Map.of());

        assertThatThrownBy(() -> PluginJar.read(jar)).isInstanceOf(InvalidPluginException.class)
                .hasMessage("broken.jar: Service-Component names OSGI-INF/gone.xml, which is not in the jar");
    }

    private static String component(String impl, String service, String property) {
        return "<scr:component xmlns:scr=\"" + DS + "\" name=\"" + impl + "\">" + property
                + "<service><provide interface=\"" + service + "\"/></service><implementation class=\"" + impl + "\"/></scr:component>";
    }

    private Path jar(String name, Map<String, String> headers, Map<String, String> entries) throws IOException {
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        headers.forEach((k, v) -> m.getMainAttributes().putValue(k, v));
        Path jar = dir.resolve(name);
        try (OutputStream os = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(os, m)) {
            for (Map.Entry<String, String> e : entries.entrySet()) {
                out.putNextEntry(new JarEntry(e.getKey()));
                out.write(e.getValue().getBytes(StandardCharsets.UTF_8));
            }
        }
        return jar;
    }
}
