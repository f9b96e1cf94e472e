package io.weir.rest.plugins;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Uploads are checked before anything reaches plugins/, and names cannot leave it. */
class PluginDirectoryTest {
    @TempDir
    Path root;

    private Path plugins() throws IOException {
        return Files.createDirectories(root.resolve("plugins"));
    }

    /** A bundle jar declaring one operator type through a DS component, as bnd writes it. */
    static byte[] pluginJar(String bundle, String version, String type) throws IOException {
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().putValue("Bundle-SymbolicName", bundle);
        m.getMainAttributes().putValue("Bundle-Version", version);
        m.getMainAttributes().putValue("Service-Component", "OSGI-INF/op.xml");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JarOutputStream out = new JarOutputStream(bytes, m)) {
            out.putNextEntry(new JarEntry("OSGI-INF/op.xml"));
            out.write(("<scr:component xmlns:scr=\"http://www.osgi.org/xmlns/scr/v1.3.0\" name=\"op\">"
                    + "<property name=\"weir.plugin.type\" value=\"" + type + "\"/>"
                    + "<service><provide interface=\"io.weir.api.plugin.OperatorFactory\"/></service>"
                    + "<implementation class=\"x.Op\"/></scr:component>").getBytes(StandardCharsets.UTF_8));
        }
        return bytes.toByteArray();
    }

    @Test
    void aGoodPluginIsPlacedUnderItsBundleAndVersionAndNothingIsLeftInStaging() throws IOException {
        PluginDirectory dir = new PluginDirectory(plugins(), 1 << 20);

        PluginDirectory.Placed placed = dir.install(new ByteArrayInputStream(pluginJar("acme.ops", "1.2.0", "acme-op")), null, false);

        assertThat(placed.fileName()).isEqualTo("acme.ops-1.2.0.jar");
        assertThat(placed.jar().types()).extracting(t -> t.name() + ":" + t.kind()).containsExactly("acme-op:operator");
        assertThat(plugins().resolve("acme.ops-1.2.0.jar")).exists();
        try (var staged = Files.list(root.resolve(".plugins-staging"))) {
            assertThat(staged).isEmpty();
        }
    }

    @Test
    void aLargerUploadIs413AndPlacesNothing() throws IOException {
        byte[] jar = pluginJar("acme.ops", "1.2.0", "acme-op");
        PluginDirectory dir = new PluginDirectory(plugins(), jar.length - 1);

        assertThatThrownBy(() -> dir.install(new ByteArrayInputStream(jar), "acme.jar", false))
                .isInstanceOfSatisfying(PluginRequestException.class, e -> assertThat(e.status()).isEqualTo(413))
                .hasMessageContaining("larger than the upload limit of " + (jar.length - 1) + " bytes");
        try (var files = Files.list(plugins())) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void aTextFileIs400NamingItAndPlacesNothing() throws IOException {
        PluginDirectory dir = new PluginDirectory(plugins(), 1 << 20);

        assertThatThrownBy(() -> dir.install(new ByteArrayInputStream("not a jar".getBytes(StandardCharsets.UTF_8)), "x.jar", false))
                .isInstanceOfSatisfying(PluginRequestException.class, e -> assertThat(e.status()).isEqualTo(400))
                .hasMessageStartingWith("x.jar is not a jar (zip) file");
        try (var files = Files.list(plugins())) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void aBundleWithoutPluginComponentsIs400() throws IOException {
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().putValue("Bundle-SymbolicName", "just.a.library");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new JarOutputStream(bytes, m).close();
        PluginDirectory dir = new PluginDirectory(plugins(), 1 << 20);

        assertThatThrownBy(() -> dir.install(new ByteArrayInputStream(bytes.toByteArray()), null, false))
                .isInstanceOfSatisfying(PluginRequestException.class, e -> assertThat(e.status()).isEqualTo(400))
                .hasMessageStartingWith("bundle just.a.library 0.0.0 declares no plugin");
    }

    @Test
    void namesWithDirectoriesOrNotEndingInJarAre400() throws IOException {
        PluginDirectory dir = new PluginDirectory(plugins(), 1 << 20);

        for (String bad : new String[] {"../x.jar", "a/b.jar", "..\\x.jar", ".hidden.jar", "x.zip", "", "x.jar/"}) {
            assertThatThrownBy(() -> dir.resolve(bad)).as(bad)
                    .isInstanceOfSatisfying(PluginRequestException.class, e -> assertThat(e.status()).isEqualTo(400));
        }
        assertThat(dir.resolve("my-plugin_1.0.jar")).isEqualTo(plugins().resolve("my-plugin_1.0.jar"));
    }

    @Test
    void anExistingFileIs409UnlessReplaced() throws Exception {
        PluginDirectory dir = new PluginDirectory(plugins(), 1 << 20);
        dir.install(new ByteArrayInputStream(pluginJar("acme.ops", "1.0.0", "acme-op")), "acme.jar", false);

        assertThatThrownBy(() -> dir.install(new ByteArrayInputStream(pluginJar("acme.ops", "1.1.0", "acme-op")), "acme.jar", false))
                .isInstanceOfSatisfying(PluginRequestException.class, e -> assertThat(e.status()).isEqualTo(409));
        dir.install(new ByteArrayInputStream(pluginJar("acme.ops", "1.1.0", "acme-op")), "acme.jar", true);

        assertThat(io.weir.core.inventory.PluginJar.read(plugins().resolve("acme.jar")).version()).isEqualTo("1.1.0");
    }

    @Test
    void removingAMissingFileIs404() throws IOException {
        PluginDirectory dir = new PluginDirectory(plugins(), 1 << 20);

        assertThatThrownBy(() -> dir.remove("gone.jar"))
                .isInstanceOfSatisfying(PluginRequestException.class, e -> assertThat(e.status()).isEqualTo(404));
    }
}
