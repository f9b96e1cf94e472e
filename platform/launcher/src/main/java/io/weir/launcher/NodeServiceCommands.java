package io.weir.launcher;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;

/**
 * {@code weir node start|stop|status}: the node as a background service ({@link NodeService}); the options of
 * {@code weir node} itself are {@link Options}.
 */
final class NodeServiceCommands {
    private NodeServiceCommands() {
    }

    /** {@code --port}, {@code --data-dir}, {@code --savepoint-dir}: where a node listens and keeps its files. */
    static final class Options {
        @Option(names = "--port", paramLabel = "N", defaultValue = "8081",
                description = "TCP port of the REST API on 127.0.0.1 (default: ${DEFAULT-VALUE}, Flink's).")
        int port;

        @Option(names = "--data-dir", paramLabel = "DIR",
                description = "The node's data directory: its jobs (jobs/), key and admin token (security/), pid file "
                    + "(node.pid) and, when started in the background, its log (log/node.log); base directory of jobs "
                    + "submitted over HTTP without base-dir. Default: data/ in the distribution.")
        Path dataDir;

        @Option(names = "--savepoint-dir", paramLabel = "DIR",
                description = "The directory savepoints are written to and restored from; savepoint targets and restore "
                    + "paths in requests must lie inside it (default: DATA_DIR/savepoints).")
        Path savepointDir;

        @Option(names = "--cluster", paramLabel = "HOST:PORT,...",
                description = "Join a cluster of nodes (docs/ha.md): every member's address, each listed separately, e.g. "
                    + "127.0.0.1:5701,127.0.0.1:5702,127.0.0.1:5703. Jobs then run on any member and move to the survivors "
                    + "when their node dies; checkpoints must go to a directory all members share.")
        String cluster;

        @Option(names = "--cluster-port", paramLabel = "N",
                description = "This node's member port (one of --cluster's); default: the first listed 127.0.0.1 port that is free.")
        Integer clusterPort;

        /** @return the cluster to join, or null without {@code --cluster} */
        NodeCluster cluster() {
            if (cluster == null) {
                if (clusterPort != null) {
                    throw new LauncherException(ExitCodes.USAGE, "--cluster-port needs --cluster");
                }
                return null;
            }
            return NodeCluster.parse(cluster, clusterPort);
        }

        /** @return the settings, paths made absolute ({@code home/data} by default) */
        NodeSettings settings(Path home) {
            return new NodeSettings(NodeSettings.HOST, port, dataDir(home, dataDir),
                    savepointDir == null ? null : savepointDir.toAbsolutePath().normalize());
        }
    }

    /** Only {@code --data-dir}, for {@code stop} and {@code status}. */
    static final class DataDirOption {
        @Option(names = "--data-dir", paramLabel = "DIR",
                description = "The node's data directory, where its pid file node.pid is (default: data/ in the distribution).")
        Path dataDir;
    }

    static Path dataDir(Path home, Path given) {
        return (given == null ? home.resolve("data") : given).toAbsolutePath().normalize();
    }

    /** {@code weir node start}. */
    @Command(name = "start", mixinStandardHelpOptions = true,
            description = {"Starts a Weir node in the background (the same process as 'weir node', in its own session, so "
                + "closing the terminal does not stop it) and returns once its REST API answers, printing where it listens.",
                "The node writes its pid and start time to DATA_DIR/node.pid and its output to DATA_DIR/log/node.log "
                + "(appended; per data directory, since several nodes of one distribution each have their own). "
                + "If it ends while starting (e.g. its port is in use), its error line and the end of its log are printed."},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:the node runs and its REST API answers",
                "1:a node already runs with this data directory, or the node ended or did not answer within 120 s while starting",
                "2:bad option"},
            footer = "%nDocs: README.md \"The node\", docs/rest-api.md.")
    static final class Start implements Callable<Integer> {
        @ParentCommand
        NodeCommands.Node node;

        @Mixin
        Options options;

        @Override
        public Integer call() throws InterruptedException {
            Launcher.Weir weir = node.parent;
            return new NodeService(weir.spawner, weir.out, weir.err).start(options.settings(weir.home));
        }
    }

    /** {@code weir node stop}. */
    @Command(name = "stop", mixinStandardHelpOptions = true,
            description = {"Stops the node running with DATA_DIR (found through DATA_DIR/node.pid) with SIGTERM, the same clean "
                + "stop as Ctrl-C: its running jobs are SUSPENDED in its registry and resume from their latest checkpoints "
                + "at its next start ('weir cancel' a job first to end it for good). Waits for the process to end and "
                + "removes the pid file; works for a node started in the foreground too."},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:the node stopped, or none was running (a stale pid file is removed)",
                "1:the node did not end within --timeout (without --force)",
                "2:bad option"},
            footer = "%nDocs: README.md \"The node\".")
    static final class Stop implements Callable<Integer> {
        @ParentCommand
        NodeCommands.Node node;

        @Mixin
        DataDirOption options;

        @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "30",
                description = "How long to wait for the node to end after SIGTERM (default: ${DEFAULT-VALUE} s).")
        long timeoutSeconds;

        @Option(names = "--force", description = "Kill the node (SIGKILL, like kill -9) if it has not ended within --timeout; "
                + "its running jobs still resume from their latest checkpoints.")
        boolean force;

        @Override
        public Integer call() throws InterruptedException {
            if (timeoutSeconds < 0) {
                throw new LauncherException(ExitCodes.USAGE, "--timeout must be >= 0 seconds, got " + timeoutSeconds);
            }
            Launcher.Weir weir = node.parent;
            return new NodeService(weir.spawner, weir.out, weir.err)
                    .stop(dataDir(weir.home, options.dataDir), Duration.ofSeconds(timeoutSeconds), force);
        }
    }

    /** {@code weir node status}. */
    @Command(name = "status", mixinStandardHelpOptions = true,
            description = {"Says whether a node runs with DATA_DIR: its pid, URL, uptime and job counts (GET /overview), or "
                + "'not running' (also when DATA_DIR/node.pid is stale: its process ended, or the pid now belongs to "
                + "another process)."},
            exitCodeListHeading = "%nExit codes (as LSB 'status'):%n",
            exitCodeList = {"0:running", "3:not running", "4:the process runs but its REST API does not answer",
                "1:the pid file cannot be read", "2:bad option"},
            footer = "%nDocs: README.md \"The node\", docs/rest-api.md (GET /overview).")
    static final class Status implements Callable<Integer> {
        @ParentCommand
        NodeCommands.Node node;

        @Mixin
        DataDirOption options;

        @Override
        public Integer call() {
            Launcher.Weir weir = node.parent;
            return new NodeService(weir.spawner, weir.out, weir.err).status(dataDir(weir.home, options.dataDir), Instant.now());
        }
    }
}
