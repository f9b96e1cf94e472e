package io.weir.launcher;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts {@code weir node ARGS} as a detached background process for {@code weir node start}.
 */
@FunctionalInterface
interface NodeSpawner {
    /**
     * @param nodeArgs the arguments after {@code weir}, e.g. {@code node --port 8081 --data-dir /d}
     * @param log the file the process's stdout and stderr are appended to
     * @return the started process
     * @throws IOException if it cannot be started
     */
    Process spawn(List<String> nodeArgs, Path log) throws IOException;

    /**
     * The same JVM command line as this process's (the java binary of this JVM, its options such as
     * {@code -Dweir.home} and {@code JAVA_OPTS}, its class path, {@link Main}), so the node runs exactly as
     * {@code bin/weir node} would. Detached so that closing the terminal does not stop it: a new session
     * ({@code setsid}, which execs in place, so the pid stays the process's), stdin from {@code /dev/null}, stdout
     * and stderr appended to the log.
     */
    NodeSpawner JVM = (nodeArgs, log) -> {
        List<String> command = new ArrayList<>();
        for (String setsid : List.of("/usr/bin/setsid", "/bin/setsid")) {
            if (Files.isExecutable(Path.of(setsid))) {
                command.add(setsid);
                break;
            }
        }
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(Main.class.getName());
        command.addAll(nodeArgs);
        return new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectErrorStream(true).start();
    };
}
