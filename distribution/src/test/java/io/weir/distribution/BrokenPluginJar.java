package io.weir.distribution;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/**
 * Builds, at test time, a plugin bundle {@code io.weir.plugin.basic} 1.2.0 whose {@code keyed-aggregate} cannot
 * restore state: its operator throws in {@code initializeState} (naming itself), as a new version that does not
 * understand an older state schema must. A test artifact only: compiled with the JDK's compiler against the
 * distribution's {@code weir-api}, with a hand-written DS component and manifest.
 */
final class BrokenPluginJar {
    /** The message its operator throws with. */
    static final String FAILURE = "keyed-aggregate 1.2.0 cannot restore this savepoint: its state schema is not supported";

    private static final String SOURCE = """
            package io.weir.it.broken;

            import io.weir.api.FieldType;
            import io.weir.api.Row;
            import io.weir.api.Schema;
            import io.weir.api.operator.OperatorContext;
            import io.weir.api.operator.Output;
            import io.weir.api.operator.StreamOperator;
            import io.weir.api.plugin.OperatorFactory;
            import io.weir.api.plugin.PluginConfig;
            import java.util.ArrayList;
            import java.util.List;

            public final class BrokenAggregateFactory implements OperatorFactory {
                public BrokenAggregateFactory() {
                }

                @Override
                public String type() {
                    return "keyed-aggregate";
                }

                @Override
                public boolean requiresKeyedInput() {
                    return true;
                }

                @Override
                public List<String> keyFields(PluginConfig config) {
                    List<String> keys = new ArrayList<>();
                    for (Object k : (List<?>) config.raw("key")) {
                        keys.add(String.valueOf(k));
                    }
                    return keys;
                }

                @Override
                public Schema outputSchema(PluginConfig config, Schema input) {
                    config.raw("aggregates");
                    config.raw("sleep-ms-per-record");
                    Schema.Builder b = Schema.builder();
                    for (String k : keyFields(config)) {
                        b.field(k, input.field(input.require(k)).type());
                    }
                    return b.field("flights", FieldType.LONG).field("avg_delay", FieldType.DOUBLE).build();
                }

                @Override
                public StreamOperator create(PluginConfig config, Schema input) {
                    return new StreamOperator() {
                        @Override
                        public void initializeState(OperatorContext context) {
                            throw new IllegalStateException("%s");
                        }

                        @Override
                        public void processElement(Row row, Output out) {
                        }
                    };
                }
            }
            """.formatted(FAILURE);

    private static final String COMPONENT = """
            <?xml version="1.0" encoding="UTF-8"?>
            <scr:component xmlns:scr="http://www.osgi.org/xmlns/scr/v1.3.0" name="io.weir.it.broken.BrokenAggregateFactory" immediate="true">
              <implementation class="io.weir.it.broken.BrokenAggregateFactory"/>
              <service><provide interface="io.weir.api.plugin.OperatorFactory"/></service>
            </scr:component>
            """;

    private BrokenPluginJar() {
    }

    /**
     * @param jar where to write the bundle
     * @param work a scratch directory for the source and classes
     * @param apiJar the distribution's weir-api jar to compile against
     */
    static void write(Path jar, Path work, Path apiJar) throws IOException {
        Path src = work.resolve("broken-src/io/weir/it/broken/BrokenAggregateFactory.java");
        Path classes = work.resolve("broken-classes");
        Files.createDirectories(src.getParent());
        Files.createDirectories(classes);
        Files.writeString(src, SOURCE, StandardCharsets.UTF_8);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = javac.run(null, null, errors, "--release", "17", "-cp", apiJar.toString(), "-d", classes.toString(), src.toString());
        if (rc != 0) {
            throw new AssertionError("compiling the broken plugin failed: " + errors.toString(StandardCharsets.UTF_8));
        }
        Manifest manifest = new Manifest();
        Attributes a = manifest.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.putValue("Bundle-ManifestVersion", "2");
        a.putValue("Bundle-SymbolicName", "io.weir.plugin.basic");
        a.putValue("Bundle-Version", "1.2.0");
        a.putValue("Import-Package", "io.weir.api,io.weir.api.operator,io.weir.api.plugin");
        a.putValue("Service-Component", "OSGI-INF/broken.xml");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest)) {
            out.putNextEntry(new JarEntry("OSGI-INF/broken.xml"));
            out.write(COMPONENT.getBytes(StandardCharsets.UTF_8));
            out.closeEntry();
            try (Stream<Path> all = Files.walk(classes)) {
                for (Path c : all.filter(Files::isRegularFile).toList()) {
                    out.putNextEntry(new JarEntry(classes.relativize(c).toString().replace('\\', '/')));
                    out.write(Files.readAllBytes(c));
                    out.closeEntry();
                }
            }
        }
    }
}
