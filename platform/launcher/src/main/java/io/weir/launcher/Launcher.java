package io.weir.launcher;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The {@code weir} command line (picocli): parses and checks the arguments, then hands commands
 * that need the engine to a {@link CommandExecutor}.
 * <pre>
 * weir run JOB.json [--set key=value ...] [--from-savepoint PATH [--allow-non-restored-state]] [--shell]
 * weir node [--port N] [--data-dir DIR] [--savepoint-dir DIR]
 * weir node start [--port N] [--data-dir DIR] [--savepoint-dir DIR] | stop [--force] | status
 * weir submit JOB.json [--set key=value ...]   (client of a running node)
 * weir list | weir cancel JOB                  (client of a running node)
 * weir plugins [install FILE.jar | remove BUNDLE]   (install/remove: client of a running node)
 * weir shell
 * weir --help | --version
 * </pre>
 * Exit codes: {@link ExitCodes}. Errors found here (unknown command or option: one line with a hint; missing or unreadable job file,
 * malformed {@code --set}, a {@code --from-savepoint} path without {@code _metadata}) exit 2 before any framework
 * starts.
 *
 * <p>Not thread-safe: one instance per process, used by the main thread.
 */
public final class Launcher {
    private final CommandExecutor executor;
    private final PrintStream out;
    private final PrintStream err;
    private final Path home;
    private final NodeSpawner spawner;

    /**
     * @param executor runs commands that need the engine
     * @param out standard output (help, version)
     * @param err error messages
     */
    public Launcher(CommandExecutor executor, PrintStream out, PrintStream err) {
        this(executor, out, err, Main.home());
    }

    /**
     * @param executor runs commands that need the engine
     * @param out standard output (help, version, client command output)
     * @param err error messages
     * @param home the distribution's root (default data directory of a node: {@code home/data})
     */
    public Launcher(CommandExecutor executor, PrintStream out, PrintStream err, Path home) {
        this(executor, out, err, home, NodeSpawner.JVM);
    }

    /**
     * @param spawner starts the background process of {@code weir node start}
     */
    Launcher(CommandExecutor executor, PrintStream out, PrintStream err, Path home, NodeSpawner spawner) {
        this.executor = executor;
        this.out = out;
        this.err = err;
        this.home = home;
        this.spawner = spawner;
    }

    /**
     * @param args the command line
     * @return the process exit code
     */
    public int execute(String... args) {
        CommandLine cl = new CommandLine(new Weir(executor, out, err, home, spawner));
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setParameterExceptionHandler(Launcher::usageError);
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            if (e instanceof LauncherException le) {
                err.println("error: " + le.getMessage());
                return le.exitCode();
            }
            err.println("error: " + e);
            e.printStackTrace(err);
            return ExitCodes.FAILED;
        });
        return cl.execute(args);
    }

    /**
     * A bad command line: one line naming what is wrong (with picocli's suggestion for a typo) and where the help
     * is, instead of the whole usage text; exit 2.
     */
    private static int usageError(CommandLine.ParameterException e, String[] args) {
        CommandLine cl = e.getCommandLine();
        String hint = "";
        if (e instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            String arg = u.getUnmatched().get(0);
            java.util.Collection<String> candidates = arg.startsWith("-") ? cl.getCommandSpec().optionsMap().keySet()
                    : cl.getSubcommands().keySet();
            List<String> near = candidates.stream().filter(c -> editDistance(arg, c) <= 2).sorted().toList();
            if (!near.isEmpty()) {
                hint = " (did you mean " + String.join(" or ", near) + "?)";
            }
        }
        String message = e.getMessage().strip().replace('\n', ' ');
        cl.getErr().println("error: " + message + hint + "; see '" + cl.getCommandSpec().qualifiedName() + " --help'");
        cl.getErr().flush();
        return ExitCodes.USAGE;
    }

    /** @return the optimal-string-alignment distance: insertions, deletions, substitutions, adjacent swaps */
    static int editDistance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            for (int j = 0; j <= b.length(); j++) {
                if (i == 0 || j == 0) {
                    d[i][j] = i + j;
                    continue;
                }
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    /** Top-level command: only options and subcommands. */
    @Command(name = "weir", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Weir: exactly-once stream processing with asynchronous barrier snapshots, on Apache Felix. "
                + "'weir COMMAND --help' describes a command, its options and exit codes.",
            subcommands = {RunCommand.class, NodeCommands.Node.class, NodeCommands.Submit.class, NodeCommands.ListJobs.class, ClusterCommand.class, InfoCommand.class,
                NodeCommands.Cancel.class, OperationCommands.Checkpoint.class,
                OperationCommands.Savepoint.class, OperationCommands.Stop.class, PluginsCommand.class, ShellCommand.class, CommandLine.HelpCommand.class},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:done", "1:failed (see the command's --help)", "2:bad command line: nothing was started",
                "130:interrupted (Ctrl-C)"},
            footer = "%nDocs: README.md; docs/job-format.md (job files), docs/configuration.md, docs/rest-api.md (the node), "
                + "docs/checkpoint-format.md, docs/runtime.md.")
    static final class Weir implements Callable<Integer> {
        final CommandExecutor executor;
        /** Client commands' output. */
        final PrintStream out;
        /** Error output of commands that print more than one line of it ({@code weir node start}). */
        final PrintStream err;
        /** The distribution's root. */
        final Path home;
        /** Starts {@code weir node start}'s background process. */
        final NodeSpawner spawner;

        @Option(names = "--feature", paramLabel = "NAME", defaultValue = "embedded",
                description = "Feature to boot: conf/features/NAME.json (default: ${DEFAULT-VALUE}).")
        String feature;

        @Spec
        CommandLine.Model.CommandSpec spec;

        Weir(CommandExecutor executor, PrintStream out, PrintStream err, Path home, NodeSpawner spawner) {
            this.executor = executor;
            this.out = out;
            this.err = err;
            this.home = home;
            this.spawner = spawner;
        }

        @Override
        public Integer call() {
            throw new CommandLine.ParameterException(spec.commandLine(), "Missing command: run, node, submit, list, info, "
                    + "cancel, checkpoint, savepoint, stop, plugins or shell");
        }
    }

    /** {@code weir run JOB.json}. */
    @Command(name = "run", mixinStandardHelpOptions = true,
            description = {"Runs a job to its end on the embedded engine, printing each completed checkpoint and, at the end, "
                + "the per-subtask breakdown of the last one. Ctrl-C cancels the job."},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:the job FINISHED", "1:the job FAILED or was CANCELED, or the engine could not start",
                "2:the job file is invalid or the savepoint cannot be restored (nothing started)", "130:interrupted (Ctrl-C)"},
            footer = "%nDocs: docs/job-format.md, docs/configuration.md, docs/checkpoint-format.md, docs/runtime.md.")
    static final class RunCommand implements Callable<Integer> {
        @ParentCommand
        Weir parent;

        @Parameters(index = "0", paramLabel = "JOB.json",
                description = "The job file; relative paths inside it resolve against its directory.")
        Path job;

        @Option(names = "--set", paramLabel = "KEY=VALUE",
                description = "Overrides a configuration option of the job, e.g. --set execution.checkpointing.interval=2s. Repeatable.")
        List<String> overrides = new ArrayList<>();

        @Option(names = "--from-savepoint", paramLabel = "PATH",
                description = "Starts the job from a savepoint or retained checkpoint (its directory or _metadata file), which "
                    + "may have been moved or copied; the job must have no checkpoints of its own yet.")
        Path fromSavepoint;

        @Option(names = "--allow-non-restored-state",
                description = "With --from-savepoint: drop the state of operators the job no longer has instead of refusing.")
        boolean allowNonRestoredState;

        @Option(names = "--shell", description = "Also open the interactive Gogo shell; keeps running until it exits.")
        boolean shell;

        @Override
        public Integer call() {
            Path file = Arguments.requireReadableJobFile(job);
            Map<String, String> parsed = Arguments.parseOverrides(overrides);
            parsed.putAll(Arguments.savepointOverrides(fromSavepoint, allowNonRestoredState));
            return parent.executor.execute(CommandBridge.runRequest(file, parsed), parent.feature, shell);
        }
    }

    /** {@code weir plugins}; {@code weir plugins install|remove} talk to a node ({@link PluginCommands}). */
    @Command(name = "plugins", mixinStandardHelpOptions = true,
            description = {"Lists the plugins of plugins/: one line per plugin file or bundle (bundle, version, state, file, types) "
                + "with an 'error:' line under each that failed (not a jar, not a bundle, unresolved imports, a component that "
                + "failed to activate, a type two bundles declare); then the installed plugin types with their kind, bundle and "
                + "version, and under each the settings of its config object. Needs no node.",
                "'weir plugins install FILE.jar' and 'weir plugins remove BUNDLE' install and remove plugins of a running node."},
            subcommands = {PluginCommands.Install.class, PluginCommands.Remove.class},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:listed (also when a plugin failed: it is reported)", "1:the engine could not start"},
            footer = "%nDocs: docs/plugins.md (\"Installing plugins\", \"Bad plugins\"), docs/job-format.md; a node serves the "
                + "same, with the jobs using each plugin, as GET /plugins (docs/rest-api.md).")
    static final class PluginsCommand implements Callable<Integer> {
        @ParentCommand
        Weir parent;

        @Override
        public Integer call() {
            return parent.executor.execute(CommandBridge.pluginsRequest(), parent.feature, false);
        }
    }

    /** {@code weir shell}. */
    @Command(name = "shell", mixinStandardHelpOptions = true,
            description = "Boots the engine and opens the interactive Gogo shell (commands weir:run, weir:plugins); "
                + "'stop 0' or the end of input exits.",
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:the shell ended", "1:the engine could not start"},
            footer = "%nDocs: README.md.")
    static final class ShellCommand implements Callable<Integer> {
        @ParentCommand
        Weir parent;

        @Override
        public Integer call() {
            return parent.executor.execute(null, parent.feature, true);
        }
    }

    /** {@code --version}: the launcher's, Felix's and Java's versions. */
    static final class VersionProvider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String weir = Launcher.class.getPackage().getImplementationVersion();
            return new String[] {
                "weir " + (weir == null ? "(development build)" : weir),
                "Apache Felix " + felixVersion() + ", Java " + System.getProperty("java.version")};
        }

        /** Felix's jar has no Implementation-Version; its Bundle-Version is in the manifest. */
        private static String felixVersion() {
            java.security.CodeSource source = org.apache.felix.framework.Felix.class.getProtectionDomain().getCodeSource();
            if (source == null || source.getLocation() == null) {
                return "(unknown version)";
            }
            try (java.util.jar.JarInputStream in = new java.util.jar.JarInputStream(source.getLocation().openStream())) {
                java.util.jar.Manifest m = in.getManifest();
                String v = m == null ? null : m.getMainAttributes().getValue("Bundle-Version");
                return v == null ? "(unknown version)" : v;
            } catch (java.io.IOException e) {
                return "(unknown version)";
            }
        }
    }
}
