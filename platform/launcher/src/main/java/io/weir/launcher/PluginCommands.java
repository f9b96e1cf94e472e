package io.weir.launcher;

import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.FileNotFoundException;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * {@code weir plugins install FILE.jar} ({@code POST /plugins}) and {@code weir plugins remove BUNDLE}
 * ({@code DELETE /plugins/:bundle}): client commands of a running node, authenticated with its admin token.
 *
 * <p>Not thread-safe: picocli fills one instance per command line.
 */
final class PluginCommands {
    /** How long an install may take on the node: its own wait for FileInstall (20 s) plus the upload. */
    static final Duration INSTALL_TIMEOUT = Duration.ofSeconds(60);

    private PluginCommands() {
    }

    /** {@code weir plugins install FILE.jar}. */
    @Command(name = "install", mixinStandardHelpOptions = true,
            description = {"Uploads a plugin bundle jar to a running node (POST /plugins). The node checks it (a jar, an OSGi "
                + "bundle, at least one plugin factory component) before placing it into its plugins/, waits until it is "
                + "installed, and answers its state and types, or why it failed."},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:installed and ACTIVE", "1:refused (not a plugin bundle: 400; exists: 409; too large: 413; no or "
                + "bad token: 401), installed but failed, not installed within the node's wait, or no node running",
                "2:bad option or unreadable file"},
            footer = "%nDocs: docs/plugins.md (\"Installing plugins\"), docs/rest-api.md.")
    static final class Install implements Callable<Integer> {
        @ParentCommand
        Launcher.PluginsCommand plugins;

        @Mixin
        NodeCommands.ClientOptions options;

        @Parameters(index = "0", paramLabel = "FILE.jar", description = "The plugin bundle jar.")
        Path jar;

        @Option(names = "--as", paramLabel = "NAME.jar", description = "File name in the node's plugins/ (default: the jar's own name).")
        String fileName;

        @Option(names = "--replace", description = "Replace a plugin file of the same name (an upgrade).")
        boolean replace;

        @Override
        public Integer call() {
            if (!Files.isRegularFile(jar) || !Files.isReadable(jar)) {
                throw new LauncherException(ExitCodes.USAGE, "plugin file " + jar + " does not exist or is not readable");
            }
            NodeClient client = options.client();
            String token = options.token(plugins.parent.home);
            String name = fileName != null ? fileName : jar.getFileName().toString();
            HttpRequest.BodyPublisher body;
            try {
                body = HttpRequest.BodyPublishers.ofFile(jar);
            } catch (FileNotFoundException e) {
                throw new LauncherException(ExitCodes.USAGE, "plugin file " + jar + " cannot be read: " + e.getMessage());
            }
            NodeClient.Answer a = client.send("POST", "/plugins?file=" + NodeCommands.encode(name) + (replace ? "&replace=true" : ""),
                    body, "application/java-archive", token, INSTALL_TIMEOUT);
            if (a.status() != 201 && a.status() != 202) {
                throw new LauncherException(ExitCodes.FAILED, a.error());
            }
            JsonObject p = a.body();
            String what = text(p, "bundle") + " " + text(p, "version") + " (" + text(p, "file") + ")";
            String error = p.get("error") instanceof JsonString s ? s.getString() : null;
            if (error != null) {
                throw new LauncherException(ExitCodes.FAILED, "plugin " + what + " was placed but is not usable: " + error
                        + "; 'weir plugins remove " + text(p, "bundle") + "' removes it");
            }
            if (a.status() == 202) {
                throw new LauncherException(ExitCodes.FAILED, "plugin " + what + " was placed but is still " + text(p, "state")
                        + "; see GET " + client.base() + "/plugins");
            }
            plugins.parent.out.println("Installed plugin " + what + " on " + client.base() + ": " + text(p, "state") + ", types "
                    + types(p));
            return ExitCodes.OK;
        }
    }

    /** {@code weir plugins remove BUNDLE}. */
    @Command(name = "remove", mixinStandardHelpOptions = true,
            description = {"Removes a plugin from a running node (DELETE /plugins/BUNDLE): deletes its file from the node's "
                + "plugins/, and FileInstall uninstalls the bundle."},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:removed", "1:no such plugin (404), no or bad token (401), or no node running", "2:bad option"},
            footer = "%nDocs: docs/plugins.md (\"Installing plugins\"), docs/rest-api.md.")
    static final class Remove implements Callable<Integer> {
        @ParentCommand
        Launcher.PluginsCommand plugins;

        @Mixin
        NodeCommands.ClientOptions options;

        @Parameters(index = "0", paramLabel = "BUNDLE", description = "The plugin's bundle symbolic name, or its file name in plugins/.")
        String bundle;

        @Override
        public Integer call() {
            NodeClient client = options.client();
            NodeClient.Answer a = client.send("DELETE", "/plugins/" + NodeCommands.encode(bundle), null,
                    options.token(plugins.parent.home));
            if (a.status() != 200) {
                throw new LauncherException(ExitCodes.FAILED, a.error());
            }
            plugins.parent.out.println("Removed plugin " + text(a.body(), "bundle") + " " + text(a.body(), "version") + " ("
                    + text(a.body(), "file") + ") from " + client.base());
            return ExitCodes.OK;
        }
    }

    private static String text(JsonObject o, String field) {
        return o.get(field) instanceof JsonString s ? s.getString() : "-";
    }

    private static String types(JsonObject p) {
        if (!(p.get("types") instanceof jakarta.json.JsonArray types) || types.isEmpty()) {
            return "(none)";
        }
        StringBuilder b = new StringBuilder();
        for (JsonValue v : types) {
            if (v instanceof JsonObject t) {
                b.append(b.isEmpty() ? "" : ", ").append(text(t, "name")).append(" (").append(text(t, "kind")).append(")");
            }
        }
        return b.toString();
    }
}
