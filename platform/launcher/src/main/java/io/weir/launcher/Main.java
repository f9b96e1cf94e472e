package io.weir.launcher;

import org.slf4j.bridge.SLF4JBridgeHandler;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Entry point of {@code bin/weir}. The distribution's root comes from {@code -Dweir.home} (set by
 * {@code bin/weir}); without it, from the location of this jar ({@code <home>/lib/weir-launcher-*.jar}).
 */
public final class Main {
    /** System property naming the distribution's root directory. */
    public static final String HOME_PROPERTY = "weir.home";

    private Main() {
    }

    /**
     * Runs the command line and exits with its code.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        SLF4JBridgeHandler.removeHandlersForRootLogger(); // java.util.logging (SPI Fly, Yasson) → SLF4J
        SLF4JBridgeHandler.install();
        OsgiCommandExecutor executor = new OsgiCommandExecutor(home(), System.out);
        int rc = new Launcher(executor, System.out, System.err).execute(args);
        System.out.flush();
        if (!executor.shuttingDown()) {
            System.exit(rc); // not during Ctrl-C: System.exit would wait for the running shutdown hooks forever
        }
    }

    static Path home() {
        String property = System.getProperty(HOME_PROPERTY);
        if (property != null && !property.isBlank()) {
            return Path.of(property).toAbsolutePath().normalize();
        }
        try {
            Path jar = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path home = jar.getParent() == null ? null : jar.getParent().getParent();
            if (Files.isRegularFile(jar) && home != null) {
                return home;
            }
        } catch (URISyntaxException | SecurityException e) {
            // fall through
        }
        return Path.of("").toAbsolutePath();
    }
}
