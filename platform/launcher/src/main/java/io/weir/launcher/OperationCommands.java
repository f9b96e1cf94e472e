package io.weir.launcher;

import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/**
 * {@code weir checkpoint}, {@code weir savepoint} and {@code weir stop}: trigger an asynchronous operation on a
 * running node's job ({@code POST /jobs/:id/checkpoints}, {@code /savepoints}, {@code /stop}), then poll its status
 * path, printing a dot per second, until it completes; print its result (checkpoint id or savepoint path).
 *
 * <p>Exit codes: 0 done; 1 the node refused (401, 403 target outside its savepoint directory, 404, 409 job not
 * running), the operation failed or did not complete in time, or the node is not running; 2 bad command line.
 */
final class OperationCommands {
    /** How often the status is polled, ms. */
    static final long POLL_MS = 200;

    private OperationCommands() {
    }

    /** Options shared by the three commands. */
    static final class Wait {
        @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "600",
                description = "How long to wait for the operation to complete (default: ${DEFAULT-VALUE} s).")
        long timeoutSeconds;
    }

    /** {@code weir checkpoint}. */
    @Command(name = "checkpoint", mixinStandardHelpOptions = true,
            description = {"Triggers a checkpoint of a job on a running node (POST /jobs/JOB/checkpoints, through the job's "
                + "request decider), waits for it and prints its id."},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:the checkpoint completed", "1:refused (401 no or bad token, 404 unknown job, 409 not running), failed, "
                + "not completed within --timeout, or no node running", "2:bad option"},
            footer = "%nDocs: docs/rest-api.md.")
    static final class Checkpoint implements Callable<Integer> {
        @ParentCommand
        Launcher.Weir parent;

        @Mixin
        NodeCommands.ClientOptions options;

        @Mixin
        Wait wait;

        @Parameters(index = "0", paramLabel = "JOB", description = "Job id or unique job name.")
        String job;

        @Override
        public Integer call() throws InterruptedException {
            NodeClient client = options.client();
            String base = "/jobs/" + NodeCommands.encode(job) + "/checkpoints";
            String rid = trigger(client, base, null, options.token(parent.home));
            JsonObject op = await(client, base + "/" + rid, "Checkpointing job " + job, wait.timeoutSeconds, parent.out);
            parent.out.println("Checkpoint " + op.getJsonNumber("checkpointId").longValue() + " of job " + job + " completed");
            return ExitCodes.OK;
        }
    }

    /** {@code weir savepoint}. */
    @Command(name = "savepoint", mixinStandardHelpOptions = true,
            description = {"Takes a savepoint of a job on a running node (POST /jobs/JOB/savepoints); the job keeps running. "
                + "Waits, showing progress, and prints the savepoint's path (for 'weir run --from-savepoint').",
                "DIR must lie inside the node's savepoint directory (default DATA_DIR/savepoints); a relative DIR resolves "
                + "against it."},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:the savepoint completed (its path is printed)", "1:refused (401, 403 outside the savepoint directory, "
                + "404, 409), failed, not completed within --timeout, or no node running", "2:bad option"},
            footer = "%nDocs: docs/rest-api.md, docs/checkpoint-format.md (savepoints).")
    static final class Savepoint implements Callable<Integer> {
        @ParentCommand
        Launcher.Weir parent;

        @Mixin
        NodeCommands.ClientOptions options;

        @Mixin
        Wait wait;

        @Parameters(index = "0", paramLabel = "JOB", description = "Job id or unique job name.")
        String job;

        @Parameters(index = "1", arity = "0..1", paramLabel = "DIR",
                description = "Where the savepoint's directory is created (default: the node's savepoint directory).")
        String directory;

        @Override
        public Integer call() throws InterruptedException {
            NodeClient client = options.client();
            String base = "/jobs/" + NodeCommands.encode(job) + "/savepoints";
            String body = "{\"target-directory\":" + json(trimmed(directory)) + ",\"cancel-job\":false}";
            String rid = trigger(client, base, body, options.token(parent.home));
            JsonObject op = await(client, base + "/" + rid, "Taking a savepoint of job " + job, wait.timeoutSeconds, parent.out);
            parent.out.println("Savepoint of job " + job + " completed: " + op.getString("location"));
            return ExitCodes.OK;
        }
    }

    /** {@code weir stop}. */
    @Command(name = "stop", mixinStandardHelpOptions = true,
            description = {"Stops a job on a running node with a final savepoint (POST /jobs/JOB/stop): sources stop, the "
                + "savepoint is taken, two-phase-commit sinks commit it, the job ends FINISHED. Prints the savepoint's path."},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:the job stopped (FINISHED) with the printed savepoint", "1:refused (401, 403 outside the savepoint "
                + "directory, 404, 409 not running), failed (the job then keeps running), not done within --timeout, or no "
                + "node running", "2:bad option"},
            footer = "%nDocs: docs/rest-api.md, docs/checkpoint-format.md (savepoints).")
    static final class Stop implements Callable<Integer> {
        @ParentCommand
        Launcher.Weir parent;

        @Mixin
        NodeCommands.ClientOptions options;

        @Mixin
        Wait wait;

        @Parameters(index = "0", paramLabel = "JOB", description = "Job id or unique job name.")
        String job;

        @Option(names = "--savepoint-dir", paramLabel = "DIR",
                description = "Where the savepoint's directory is created; inside the node's savepoint directory (default: it).")
        String directory;

        @Option(names = "--drain", description = "Give sources end-of-input first, so every operator finishes and flushes.")
        boolean drain;

        @Override
        public Integer call() throws InterruptedException {
            NodeClient client = options.client();
            String job64 = NodeCommands.encode(job);
            String body = "{\"targetDirectory\":" + json(trimmed(directory)) + ",\"drain\":" + drain + "}";
            String rid = trigger(client, "/jobs/" + job64 + "/stop", body, options.token(parent.home));
            JsonObject op = await(client, "/jobs/" + job64 + "/savepoints/" + rid, "Stopping job " + job + " with a savepoint",
                    wait.timeoutSeconds, parent.out);
            parent.out.println("Job " + job + " stopped with savepoint " + op.getString("location"));
            return ExitCodes.OK;
        }
    }

    /** A relative DIR is sent as given: the node resolves it in its savepoint directory. */
    private static String trimmed(String dir) {
        return dir == null ? null : dir.strip();
    }

    private static String json(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    /** POSTs and returns the request id, or throws with the node's one-line error. */
    static String trigger(NodeClient client, String path, String body, String token) {
        NodeClient.Answer a = client.send("POST", path, body, token);
        if (a.status() != 202 || !(a.body().get("request-id") instanceof JsonString rid)) {
            throw new LauncherException(a.status() == 400 ? ExitCodes.USAGE : ExitCodes.FAILED, a.error());
        }
        return rid.getString();
    }

    /**
     * Polls {@code statusPath} until COMPLETED, printing {@code what} then a dot per second.
     *
     * @return the {@code operation} of a successful operation
     * @throws LauncherException (exit 1) with the failure's message if it failed, or if it does not complete in
     *         {@code timeoutSeconds}
     */
    static JsonObject await(NodeClient client, String statusPath, String what, long timeoutSeconds, PrintStream out)
            throws InterruptedException {
        out.print(what + " ");
        out.flush();
        long start = System.nanoTime();
        long deadline = start + timeoutSeconds * 1_000_000_000L;
        long dots = 0;
        try {
            while (true) {
                NodeClient.Answer a = client.send("GET", statusPath, null, null);
                if (a.status() != 200) {
                    throw new LauncherException(ExitCodes.FAILED, a.error());
                }
                JsonObject status = a.body().getJsonObject("status");
                if (status != null && "COMPLETED".equals(status.getString("id", ""))) {
                    JsonObject op = a.body().getJsonObject("operation");
                    if (op.get("failure-cause") instanceof JsonObject cause) {
                        throw new LauncherException(ExitCodes.FAILED, what.toLowerCase() + " failed: "
                                + cause.getString("class", "?") + ": " + cause.getString("message", ""));
                    }
                    return op;
                }
                long now = System.nanoTime();
                if (now > deadline) {
                    throw new LauncherException(ExitCodes.FAILED, what.toLowerCase() + " did not complete within "
                            + timeoutSeconds + " s; it may still complete: GET " + statusPath);
                }
                for (; dots < (now - start) / 1_000_000_000L; dots++) {
                    out.print('.');
                    out.flush();
                }
                Thread.sleep(POLL_MS);
            }
        } finally {
            out.println();
        }
    }
}
