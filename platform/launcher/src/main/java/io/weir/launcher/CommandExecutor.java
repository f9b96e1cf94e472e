package io.weir.launcher;

import java.util.Map;

/**
 * Runs a command that needs the engine. The launcher has checked the command line before calling
 * it; {@link OsgiCommandExecutor} boots Felix and hands the request to the CLI bundle.
 */
@FunctionalInterface
public interface CommandExecutor {
    /**
     * @param request the command as a map of JDK types (shape: {@link CommandBridge}), or null for
     *        none (only an interactive shell)
     * @param feature the feature to boot (file {@code conf/features/<feature>.json})
     * @param interactiveShell whether to offer the Gogo shell on stdin and keep running until it exits
     * @return the process exit code ({@link ExitCodes})
     * @throws LauncherException for a failure with a message for the user
     */
    int execute(Map<String, Object> request, String feature, boolean interactiveShell);

    /**
     * Runs a node in the foreground ({@code weir node}) until the process is stopped (Ctrl-C, SIGTERM).
     *
     * @param settings port and data directory, already checked
     * @return the process exit code ({@link ExitCodes}): 0 after a clean stop
     * @throws LauncherException (exit 1) if the port is in use or the REST API does not come up
     */
    default int runNode(NodeSettings settings) {
        throw new UnsupportedOperationException("this executor runs no node");
    }

    /**
     * Runs a node that is a member of a cluster (docs/ha.md) until it is stopped.
     *
     * @param settings where the node listens and keeps its files
     * @param cluster the cluster it joins
     * @return the process exit code, as {@link #runNode(NodeSettings)}
     */
    default int runNode(NodeSettings settings, NodeCluster cluster) {
        throw new UnsupportedOperationException("this executor runs no cluster node");
    }
}
