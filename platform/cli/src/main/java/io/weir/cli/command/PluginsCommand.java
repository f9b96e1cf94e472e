package io.weir.cli.command;

import io.weir.core.plugin.PluginRegistry;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * {@code weir plugins}: one line per installed plugin type with its kind (source, operator, sink)
 * and where it comes from (bundle symbolic name and version in OSGi).
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
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"TYPE", "KIND", "FROM"});
        for (String type : plugins.types()) {
            plugins.source(type).ifPresent(f -> rows.add(new String[] {type, "source", origin.apply(f)}));
            plugins.operator(type).ifPresent(f -> rows.add(new String[] {type, "operator", origin.apply(f)}));
            plugins.sink(type).ifPresent(f -> rows.add(new String[] {type, "sink", origin.apply(f)}));
        }
        if (rows.size() == 1) {
            out.println("No plugins installed: put plugin bundles into plugins/");
            return ExitCodes.OK;
        }
        int w0 = rows.stream().mapToInt(r -> r[0].length()).max().orElse(0);
        int w1 = rows.stream().mapToInt(r -> r[1].length()).max().orElse(0);
        for (String[] r : rows) {
            out.println(String.format("%-" + w0 + "s  %-" + w1 + "s  %s", r[0], r[1], r[2]));
        }
        return ExitCodes.OK;
    }
}
