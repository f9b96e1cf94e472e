package io.weir.cli.command;

import io.weir.api.plugin.PluginSetting;
import io.weir.core.inventory.InstalledPlugin;
import io.weir.core.plugin.PluginRegistry;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * {@code weir plugins}: first the plugin table of the {@link io.weir.core.inventory.PluginInventory} (one line per plugin
 * file or bundle: bundle, version, state, file, types; then an indented {@code error:} line for each that failed), then per
 * installed plugin type, one line with its kind (source, operator, sink) and where it
 * comes from (bundle symbolic name and version in OSGi), then one indented line per setting of its {@code config}
 * ({@link PluginSetting}: name, type, {@code required} or its default, description).
 */
public final class PluginsCommand {
    private PluginsCommand() {
    }

    /**
     * @param plugins the installed plugins
     * @param origin describes where a factory comes from (e.g. {@code io.weir.plugins.file 0.1.0})
     * @param out where the table goes
     * @return {@link ExitCodes#OK}
     */
    public static int run(PluginRegistry plugins, Function<Object, String> origin, PrintStream out) {
        return run(plugins, origin, List.of(), out);
    }

    /**
     * @param plugins the installed plugins
     * @param origin describes where a factory comes from (e.g. {@code io.weir.plugins.file 0.1.0})
     * @param inventory every plugin file and bundle with its state and error ({@code PluginInventory#plugins()})
     * @param out where the tables go
     * @return {@link ExitCodes#OK}, also when a plugin failed (a failed plugin is reported, not fatal)
     */
    public static int run(PluginRegistry plugins, Function<Object, String> origin, List<InstalledPlugin> inventory, PrintStream out) {
        if (!inventory.isEmpty()) {
            printInventory(inventory, out);
            out.println();
        }
        List<Entry> entries = new ArrayList<>();
        for (String type : plugins.types()) {
            plugins.source(type).ifPresent(f -> entries.add(new Entry(type, "source", origin.apply(f), f.settings())));
            plugins.operator(type).ifPresent(f -> entries.add(new Entry(type, "operator", origin.apply(f), f.settings())));
            plugins.sink(type).ifPresent(f -> entries.add(new Entry(type, "sink", origin.apply(f), f.settings())));
        }
        if (entries.isEmpty()) {
            out.println("No plugins installed: put plugin bundles into plugins/");
            return ExitCodes.OK;
        }
        int w0 = Math.max(4, entries.stream().mapToInt(e -> e.type().length()).max().orElse(0));
        int w1 = Math.max(4, entries.stream().mapToInt(e -> e.kind().length()).max().orElse(0));
        List<PluginSetting> all = entries.stream().flatMap(e -> e.settings().stream()).toList();
        int s0 = all.stream().mapToInt(s -> s.name().length()).max().orElse(0);
        int s1 = all.stream().mapToInt(s -> s.type().length()).max().orElse(0);
        int s2 = all.stream().mapToInt(s -> presence(s).length()).max().orElse(0);
        out.println(String.format("%-" + w0 + "s  %-" + w1 + "s  %s", "TYPE", "KIND", "FROM"));
        for (Entry e : entries) {
            out.println(String.format("%-" + w0 + "s  %-" + w1 + "s  %s", e.type(), e.kind(), e.origin()));
            if (e.settings().isEmpty()) {
                out.println("    (no settings)");
            }
            for (PluginSetting s : e.settings()) {
                out.println(String.format("    %-" + s0 + "s  %-" + s1 + "s  %-" + s2 + "s  %s", s.name(), s.type(), presence(s),
                        s.description()));
            }
        }
        out.println("Settings go into an operator's \"config\" object of a job file (docs/job-format.md).");
        return ExitCodes.OK;
    }

    /** The plugin table: columns sized to their widest cell; a failed plugin's error on the next line. */
    static void printInventory(List<InstalledPlugin> inventory, PrintStream out) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"PLUGIN", "VERSION", "STATE", "FILE", "TYPES"});
        for (InstalledPlugin p : inventory) {
            String types = p.types().isEmpty() ? "-"
                    : String.join(", ", p.types().stream().map(t -> t.name() + " (" + t.kind() + ")").toList());
            rows.add(new String[] {dash(p.bundle()), dash(p.version()), p.state(), dash(p.file()), types});
        }
        int[] w = new int[4];
        for (String[] r : rows) {
            for (int i = 0; i < w.length; i++) {
                w[i] = Math.max(w[i], r[i].length());
            }
        }
        String format = "%-" + w[0] + "s  %-" + w[1] + "s  %-" + w[2] + "s  %-" + w[3] + "s  %s";
        for (int i = 0; i < rows.size(); i++) {
            String[] r = rows.get(i);
            out.println(String.format(format, r[0], r[1], r[2], r[3], r[4]).stripTrailing());
            if (i > 0 && inventory.get(i - 1).failed()) {
                out.println("    error: " + inventory.get(i - 1).error());
            }
        }
        long failed = inventory.stream().filter(InstalledPlugin::failed).count();
        if (failed > 0) {
            out.println(failed + " plugin(s) failed; see docs/plugins.md, \"Bad plugins\".");
        }
    }

    private static String dash(String s) {
        return s == null ? "-" : s;
    }

    /** @return {@code required}, {@code default <value>} or {@code optional} */
    static String presence(PluginSetting s) {
        return s.required() ? "required" : s.defaultValue() == null ? "optional" : "default " + s.defaultValue();
    }

    private record Entry(String type, String kind, String origin, List<PluginSetting> settings) {
    }
}
