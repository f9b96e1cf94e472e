package io.weir.launcher;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code weir node} (the long-running engine with the REST API) and its clients {@code weir submit},
 * {@code weir list}, {@code weir cancel}, which talk to a running node over HTTP
 * ({@link NodeClient}); docs/rest-api.md describes the API.
 *
 * <p>Client exit codes: 0 done; 1 the node refused (401 no or bad token, 404 unknown job, 409 wrong
 * state) or cannot be reached; 2 bad command line or, for {@code submit}, an invalid job (400).
 */
final class NodeCommands {
    private NodeCommands() {
    }

    /** {@code weir node}: runs a node in the foreground; {@code start|stop|status} run it as a background service. */
    @Command(name = "node", mixinStandardHelpOptions = true,
            subcommands = {NodeServiceCommands.Start.class, NodeServiceCommands.Stop.class, NodeServiceCommands.Status.class},
            description = {"Runs a Weir node in the foreground: the engine plus the REST API on 127.0.0.1 (docs/rest-api.md). "
                + "Jobs are submitted, listed and cancelled with 'weir submit', 'weir list', 'weir cancel' or over HTTP. "
                + "'weir node start|stop|status' run it as a background service instead (see 'weir node start --help').",
                "On first start it creates an RSA key and an admin token under DATA_DIR/security/ (readable by the owner only); "
                + "every POST/PATCH/DELETE needs that token as 'Authorization: Bearer <token>'. It writes its pid to "
                + "DATA_DIR/node.pid while it runs; a second node on the same data directory is refused.",
                "Ctrl-C (SIGTERM) stops the node; its running jobs are SUSPENDED in its registry and resume at its next start."},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"130:stopped cleanly by Ctrl-C (SIGINT; the JVM's status for the signal)",
                "143:stopped cleanly by SIGTERM (e.g. 'weir node stop')",
                "1:the port is in use, a node already runs with this data directory, or the REST API did not come up",
                "2:bad option"},
            footer = "%nDocs: README.md \"The node\", docs/rest-api.md.")
    static final class Node implements Callable<Integer> {
        @ParentCommand
        Launcher.Weir parent;

        @Mixin
        NodeServiceCommands.Options options;

        @Override
        public Integer call() {
            NodeCluster cluster = options.cluster();
            NodeSettings settings = options.settings(parent.home);
            return cluster == null ? parent.executor.runNode(settings) : parent.executor.runNode(settings, cluster);
        }
    }

    /** Where the node is and how to authenticate: shared by the client commands. */
    static final class ClientOptions {
        @Option(names = "--node", paramLabel = "URL",
                description = "The node's REST URL (default: $" + NodeClient.NODE_ENV + ", else " + NodeClient.DEFAULT_URL + ").")
        String node;

        @Option(names = "--data-dir", paramLabel = "DIR",
                description = "The node's data directory, to read its admin token from DIR/security/admin.token "
                    + "(default: data/ in the distribution).")
        Path dataDir;

        @Option(names = "--token-file", paramLabel = "FILE",
                description = "File holding the bearer token (default: the node's DATA_DIR/security/admin.token).")
        Path tokenFile;

        NodeClient client() {
            String url = node != null ? node : System.getenv(NodeClient.NODE_ENV);
            return new NodeClient(url == null || url.isBlank() ? NodeClient.DEFAULT_URL : url);
        }

        String token(Path home) {
            Path file = tokenFile != null ? tokenFile
                    : NodeSettings.tokenFile((dataDir == null ? home.resolve("data") : dataDir).toAbsolutePath().normalize());
            return NodeClient.readToken(file);
        }
    }

    /** {@code weir submit}. */
    @Command(name = "submit", mixinStandardHelpOptions = true,
            description = {"Submits a job file to a running node (POST /jobs) and prints the job's id; the job runs on the node.",
                "Relative paths in the job file resolve against its directory, as with 'weir run'."},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:submitted", "1:the node refused it (a job of that name runs: 409; no or bad token: 401; savepoint "
                + "outside its savepoint directory: 403) or no node is running",
                "2:bad option, or the job file is invalid (the message names the field)"},
            footer = "%nDocs: docs/rest-api.md, docs/job-format.md.")
    static final class Submit implements Callable<Integer> {
        @ParentCommand
        Launcher.Weir parent;

        @Mixin
        ClientOptions options;

        @Parameters(index = "0", paramLabel = "JOB.json", description = "The job file.")
        Path job;

        @Option(names = "--set", paramLabel = "KEY=VALUE",
                description = "Overrides a configuration option of the job, e.g. --set execution.checkpointing.interval=2s. Repeatable.")
        List<String> overrides = new ArrayList<>();

        @Option(names = "--from-savepoint", paramLabel = "PATH",
                description = "Restore from this savepoint directory (as printed by 'weir savepoint'/'weir stop'); it must lie "
                    + "inside the node's savepoint directory.")
        Path fromSavepoint;

        @Option(names = "--allow-non-restored-state",
                description = "With --from-savepoint: drop the state of operators the job no longer has instead of refusing.")
        boolean allowNonRestoredState;

        @Override
        public Integer call() {
            if (allowNonRestoredState && fromSavepoint == null) {
                throw new LauncherException(ExitCodes.USAGE, "--allow-non-restored-state needs --from-savepoint PATH");
            }
            Path file = Arguments.requireReadableJobFile(job);
            Map<String, String> sets = Arguments.parseOverrides(overrides);
            String spec;
            try {
                spec = Files.readString(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new LauncherException(ExitCodes.USAGE, "cannot read job file " + file + ": " + e.getMessage());
            }
            NodeClient client = options.client();
            String token = options.token(parent.home);
            StringBuilder query = new StringBuilder("/jobs?base-dir=").append(encode(file.getParent().toString()));
            sets.forEach((k, v) -> query.append("&set=").append(encode(k + "=" + v)));
            if (fromSavepoint != null) {
                query.append("&savepointPath=").append(encode(fromSavepoint.toAbsolutePath().normalize().toString()));
                if (allowNonRestoredState) {
                    query.append("&allowNonRestoredState=true");
                }
            }
            NodeClient.Answer a = client.send("POST", query.toString(), spec, token);
            if (a.status() == 202 || a.status() == 200) {
                parent.out.println("Submitted job " + text(a.body(), "name") + " as " + text(a.body(), "jobid") + " to " + client.base());
                return ExitCodes.OK;
            }
            throw new LauncherException(a.status() == 400 ? ExitCodes.USAGE : ExitCodes.FAILED,
                    a.error() + (a.status() == 400 && !a.error().startsWith("--set ") && !a.error().startsWith("set ") ? " (in " + file + ")" : ""));
        }
    }

    /** {@code weir list}. */
    @Command(name = "list", mixinStandardHelpOptions = true,
            description = {"Lists the jobs of a running node (GET /jobs/overview): id, name, status, uptime and the last "
                + "completed checkpoint (id, age, duration)."},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:listed", "1:no node is running", "2:bad option"},
            footer = "%nDocs: docs/rest-api.md.")
    static final class ListJobs implements Callable<Integer> {
        @ParentCommand
        Launcher.Weir parent;

        @Mixin
        ClientOptions options;

        @Override
        public Integer call() {
            NodeClient.Answer a = options.client().send("GET", "/jobs/overview", null, null);
            if (a.status() != 200) {
                throw new LauncherException(ExitCodes.FAILED, a.error());
            }
            print(a.body(), System.currentTimeMillis(), parent.out);
            return ExitCodes.OK;
        }

        /** Prints the table of {@code GET /jobs/overview}'s answer. */
        static void print(JsonObject overview, long now, PrintStream out) {
            List<String[]> rows = new ArrayList<>();
            JsonArray jobs = overview.getJsonArray("jobs");
            // a cluster node lists every job of the cluster with the member that runs it
            boolean cluster = jobs.stream().anyMatch(v -> v.asJsonObject().containsKey("node"));
            rows.add(new String[] {"ID", "NAME", "STATUS", "UPTIME", "LAST CHECKPOINT", cluster ? "NODE" : ""});
            for (JsonValue v : jobs) {
                JsonObject j = v.asJsonObject();
                String last = "-";
                if (j.get("last-checkpoint") instanceof JsonObject c) {
                    long ageMs = now - (number(c, "latest_ack_timestamp") > 0 ? number(c, "latest_ack_timestamp") : number(c, "trigger_timestamp"));
                    last = "#" + number(c, "id") + ", " + seconds(Math.max(0, ageMs)) + " ago, took " + number(c, "end_to_end_duration") + " ms";
                }
                String node = j.get("node") instanceof jakarta.json.JsonString n ? (n.getString().isEmpty() ? "-" : n.getString()) : "";
                rows.add(new String[] {text(j, "jid"), text(j, "name"), text(j, "state"), seconds(number(j, "duration")), last, node});
            }
            if (jobs.isEmpty()) {
                out.println("No jobs on this node: submit one with 'weir submit JOB.json'");
                return;
            }
            int[] w = new int[6];
            for (String[] r : rows) {
                for (int i = 0; i < w.length; i++) {
                    w[i] = Math.max(w[i], r[i].length());
                }
            }
            for (String[] r : rows) {
                out.println(String.format("%-" + w[0] + "s  %-" + w[1] + "s  %-" + w[2] + "s  %" + w[3] + "s  %-" + w[4] + "s  %s",
                        (Object[]) r).stripTrailing());
            }
        }
    }

    /** {@code weir cancel}. */
    @Command(name = "cancel", mixinStandardHelpOptions = true,
            description = {"Cancels a job on a running node (PATCH /jobs/JOB?mode=cancel) and waits up to 15 s for it to end.",
                "JOB is the job's id or a name unique among the node's jobs."},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:cancelled", "1:unknown job (404), already ended (409), no or bad token (401), not CANCELED within "
                + "15 s, or no node running", "2:bad option"},
            footer = "%nDocs: docs/rest-api.md.")
    static final class Cancel implements Callable<Integer> {
        /** Longest wait for the job to reach a terminal status, ms. */
        static final long WAIT_MS = 15_000;

        @ParentCommand
        Launcher.Weir parent;

        @Mixin
        ClientOptions options;

        @Parameters(index = "0", paramLabel = "JOB", description = "Job id or unique job name.")
        String job;

        @Override
        public Integer call() throws InterruptedException {
            NodeClient client = options.client();
            String token = options.token(parent.home);
            NodeClient.Answer a = client.send("PATCH", "/jobs/" + encode(job) + "?mode=cancel", null, token);
            if (a.status() != 202) {
                throw new LauncherException(ExitCodes.FAILED, a.error());
            }
            parent.out.println("Cancelling job " + job + " ...");
            long deadline = System.nanoTime() + WAIT_MS * 1_000_000L;
            String state = "?";
            while (System.nanoTime() < deadline) {
                NodeClient.Answer d = client.send("GET", "/jobs/" + encode(job), null, null);
                state = d.status() == 200 ? text(d.body(), "state") : "?";
                if (state.equals("CANCELED") || state.equals("FINISHED") || state.equals("FAILED")) {
                    parent.out.println("Job " + job + " " + state);
                    return ExitCodes.OK;
                }
                Thread.sleep(100);
            }
            throw new LauncherException(ExitCodes.FAILED, "job " + job + " is still " + state + " " + WAIT_MS + " ms after the cancel");
        }
    }

    static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    static String text(JsonObject o, String field) {
        return o.get(field) instanceof JsonString s ? s.getString() : String.valueOf(o.get(field));
    }

    static long number(JsonObject o, String field) {
        return o.get(field) instanceof JsonNumber n ? n.longValue() : 0;
    }

    static String seconds(long ms) {
        long s = ms / 1000;
        return s < 60 ? s + "s" : s < 3600 ? (s / 60) + "m" + (s % 60) + "s" : (s / 3600) + "h" + (s % 3600 / 60) + "m";
    }
}
