package io.weir.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FeatureDescriptorTest {
    @TempDir
    Path dir;

    private Path feature(String json) throws IOException {
        return Files.writeString(dir.resolve("f.json"), json);
    }

    @Test
    void bundlesKeepTheirOrderAndDefaultToStartLevelTwo() throws IOException {
        FeatureDescriptor f = FeatureDescriptor.read(feature("""
                {"name": "embedded", "bundles": [{"file": "ext.jar", "startLevel": 1}, "b.jar", "a.jar"],
                 "config": {"felix.fileinstall.poll": "100", "x": 3}}"""));

        assertThat(f.bundles()).extracting(FeatureDescriptor.BundleEntry::file).containsExactly("ext.jar", "b.jar", "a.jar");
        assertThat(f.bundles()).extracting(FeatureDescriptor.BundleEntry::startLevel).containsExactly(1, 2, 2);
        assertThat(f.config()).containsEntry("felix.fileinstall.poll", "100").containsEntry("x", "3");
    }

    @Test
    void resolveNamesEveryMissingBundle() throws IOException {
        Files.createFile(dir.resolve("present.jar"));
        FeatureDescriptor f = FeatureDescriptor.read(feature("""
                {"name": "embedded", "bundles": ["present.jar", "weir-runtime.jar", "other.jar"]}"""));

        assertThatThrownBy(() -> f.resolve(dir))
                .isInstanceOf(LauncherException.class)
                .hasMessageContaining("feature 'embedded'")
                .hasMessageContaining("weir-runtime.jar, other.jar")
                .satisfies(e -> assertThat(((LauncherException) e).exitCode()).isEqualTo(ExitCodes.FAILED));
    }

    @Test
    void resolveReturnsJarsInFeatureOrder() throws IOException {
        Files.createFile(dir.resolve("a.jar"));
        Files.createFile(dir.resolve("b.jar"));
        FeatureDescriptor f = FeatureDescriptor.read(feature("{\"name\": \"n\", \"bundles\": [\"b.jar\", \"a.jar\"]}"));

        assertThat(f.resolve(dir)).containsExactly(dir.resolve("b.jar"), dir.resolve("a.jar"));
    }

    @Test
    void malformedEntryIsReportedWithItsIndexAndTheFile() throws IOException {
        Path file = feature("{\"name\": \"n\", \"bundles\": [\"a.jar\", 42]}");

        assertThatThrownBy(() -> FeatureDescriptor.read(file))
                .isInstanceOf(LauncherException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("bundles[1]");
    }

    @Test
    void bundlePathsOutsideBundlesDirectoryAreRejected() throws IOException {
        Path file = feature("{\"name\": \"n\", \"bundles\": [\"../lib/x.jar\"]}");

        assertThatThrownBy(() -> FeatureDescriptor.read(file)).hasMessageContaining("plain file name");
    }
}
