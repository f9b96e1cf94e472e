package io.weir.console;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;

/**
 * A real {@code bin/weir node} of the built distribution ({@code weir.home}, default
 * {@code ../../distribution/target/weir}) on a free loopback port, for the console's ITs. It runs from a private copy of
 * the distribution in {@code work/weir} (its {@code bin/weir} copied, the rest linked, {@code plugins/} a directory of
 * links to the shipped jars, some left out on request), so a test may add or remove plugins without changing the
 * build's distribution. Output goes to
 * {@code work/node-stdout.txt} / {@code -stderr.txt}. {@link #stop()} ends it and its descendants (SIGTERM, then
 * SIGKILL after 20 s); call it from {@code @AfterAll}. Not thread-safe.
 */
public final class WeirNode {
    private static final Path HOME = Path.of(System.getProperty("weir.home", "../../distribution/target/weir")).toAbsolutePath();

    private final Path work;
    private final int port;
    private final List<String> leftOut;
    private Process process;

    /**
     * @param work the directory for the node's data directory ({@code work/data}), its copy of the distribution
     *        ({@code work/weir}) and output files
     * @param port the loopback port to serve on (see {@link #freePort()})
     * @param leftOutPlugins file name prefixes of shipped plugin jars not to put into the node's {@code plugins/}
     */
    public WeirNode(Path work, int port, String... leftOutPlugins) {
        this.work = work;
        this.port = port;
        this.leftOut = List.of(leftOutPlugins);
    }

    /**
     * @param prefix the start of a shipped plugin jar's file name, e.g. {@code weir-sink-kafka-}
     * @return that jar in the built distribution's {@code plugins/}
     * @throws IllegalStateException if there is no such jar
     */
    public static Path shippedPlugin(String prefix) throws IOException {
        try (Stream<Path> jars = Files.list(HOME.resolve("plugins"))) {
            return jars.filter(j -> j.getFileName().toString().startsWith(prefix)).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no plugin " + prefix + "*.jar in " + HOME.resolve("plugins")));
        }
    }

    /** @return the node's own {@code plugins/} directory (FileInstall watches it) */
    public Path pluginsDir() {
        return work.resolve("weir/plugins");
    }

    /** @return a loopback port nobody listened on a moment ago */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** @return the node's base URL, {@code http://127.0.0.1:<port>} */
    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** @return the node's data directory */
    public Path dataDir() {
        return work.resolve("data");
    }

    /** @return the node's admin token file ({@code <data>/security/admin.token}), written on the node's first start */
    public Path tokenFile() {
        return dataDir().resolve("security/admin.token");
    }

    /** Starts the node and waits up to 120 s for its "listening" line; fails with its output if it died. */
    public void start() throws IOException {
        Files.createDirectories(work);
        if (!Files.isExecutable(HOME.resolve("bin/weir"))) {
            throw new IllegalStateException(HOME.resolve("bin/weir") + " is missing: build the distribution first (mvn -pl platform/console -am verify)");
        }
        Path weir = privateCopy(work.resolve("weir")).resolve("bin/weir");
        Path out = work.resolve("node-stdout.txt");
        process = new ProcessBuilder(List.of(weir.toString(), "node", "--port", String.valueOf(port), "--data-dir", dataDir().toString()))
                .directory(work.toFile()).redirectOutput(out.toFile()).redirectError(work.resolve("node-stderr.txt").toFile()).start();
        process.getOutputStream().close();
        await("node listening on " + port).atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .until(() -> !process.isAlive() || Files.readString(out, StandardCharsets.UTF_8).contains("Weir node listening on " + url()));
        if (!process.isAlive()) {
            throw new IllegalStateException("the node died: " + Files.readString(out) + Files.readString(work.resolve("node-stderr.txt")));
        }
    }

    /** Copies the distribution into {@code target} unless done already: bin/weir copied (it finds its home from its path). */
    private Path privateCopy(Path target) throws IOException {
        if (Files.exists(target.resolve("bin/weir"))) {
            return target;
        }
        Files.createDirectories(target.resolve("bin"));
        Files.createDirectories(target.resolve("plugins"));
        try (Stream<Path> entries = Files.list(HOME)) {
            for (Path e : entries.toList()) {
                String name = e.getFileName().toString();
                if (!name.equals("bin") && !name.equals("plugins") && !name.equals("data")) {
                    Files.createSymbolicLink(target.resolve(name), e);
                }
            }
        }
        try (Stream<Path> jars = Files.list(HOME.resolve("plugins"))) {
            for (Path jar : jars.toList()) {
                String name = jar.getFileName().toString();
                if (leftOut.stream().noneMatch(name::startsWith)) {
                    Files.createSymbolicLink(target.resolve("plugins").resolve(name), jar);
                }
            }
        }
        Files.copy(HOME.resolve("bin/weir"), target.resolve("bin/weir"));
        if (!target.resolve("bin/weir").toFile().setExecutable(true)) {
            throw new IOException("cannot make " + target.resolve("bin/weir") + " executable");
        }
        return target;
    }

    /** Stops the node (SIGTERM to it and its descendants, SIGKILL after 20 s) and waits for it to end. Idempotent. */
    public void stop() throws InterruptedException {
        if (process == null) {
            return;
        }
        List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
        all.add(process.toHandle());
        all.forEach(ProcessHandle::destroy);
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            all.forEach(ProcessHandle::destroyForcibly);
            process.waitFor(10, TimeUnit.SECONDS);
        }
        for (ProcessHandle h : all) {
            h.destroyForcibly();
        }
        process = null;
    }
}
