package io.weir.launcher;

import io.weir.cli.command.CheckpointTable;
import io.weir.core.checkpoint.SubtaskCheckpointMetrics;
import io.weir.core.checkpoint.TaskId;
import io.weir.core.coordination.CompletedCheckpointStats;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code weir info JOB}: a job on a running node: name, id, status, uptime, its operators with their parallelism and
 * inputs, then the per-subtask table of its latest completed checkpoint, formatted by {@link CheckpointTable} exactly
 * as {@code weir run} prints it. Reads {@code GET /jobs/:id}, {@code /jobs/:id/checkpoints},
 * {@code /checkpoints/details/:cid} and {@code .../subtasks/:vertex}; needs no token.
 *
 * <p>Exit codes: 0 printed; 1 unknown job (404), a name shared by several ended jobs (409), or the node is not running.
 */
@Command(name = "info", mixinStandardHelpOptions = true,
        description = {"Shows a job on a running node: name, id, status, uptime, its operators with their parallelism and "
            + "inputs, and the per-subtask table of its latest completed checkpoint (as 'weir run' prints it: start delay, "
            + "alignment, sync, async, end to end in ms; sizes in bytes).",
            "JOB is the job's id or a name unique among the node's jobs."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:shown", "1:unknown job (404), ambiguous name (409) or no node running", "2:bad option"},
        footer = "%nDocs: docs/rest-api.md (GET /jobs/:id, /jobs/:id/checkpoints), docs/checkpoint-format.md.")
final class InfoCommand implements Callable<Integer> {
    /** Tries to read the latest checkpoint when it leaves the node's history between two requests. */
    static final int ATTEMPTS = 3;

    @ParentCommand
    Launcher.Weir parent;

    @Mixin
    NodeCommands.ClientOptions options;

    @Parameters(index = "0", paramLabel = "JOB", description = "Job id or unique job name.")
    String job;

    @Override
    public Integer call() {
        NodeClient client = options.client();
        JsonObject details = get(client, "/jobs/" + NodeCommands.encode(job));
        printJob(details, parent.out);
        String jobPath = "/jobs/" + NodeCommands.encode(NodeCommands.text(details, "jid"));
        List<String> vertexOrder = new ArrayList<>();
        for (JsonValue v : details.getJsonArray("vertices")) {
            vertexOrder.add(NodeCommands.text(v.asJsonObject(), "id"));
        }
        for (int attempt = 1; ; attempt++) {
            JsonObject latest = get(client, jobPath + "/checkpoints").getJsonObject("latest");
            if (latest == null || !(latest.get("completed") instanceof JsonObject completed)) {
                parent.out.println("No completed checkpoint yet.");
                return ExitCodes.OK;
            }
            CompletedCheckpointStats stats = checkpoint(client, jobPath, NodeCommands.number(completed, "id"));
            if (stats != null) {
                parent.out.print(CheckpointTable.format(stats, vertexOrder));
                return ExitCodes.OK;
            }
            if (attempt == ATTEMPTS) {
                throw new LauncherException(ExitCodes.FAILED, "the latest checkpoint of job " + job
                        + " kept leaving the node's checkpoint history while it was read; try again");
            }
        }
    }

    /** Prints the job's header and its operators. */
    static void printJob(JsonObject details, PrintStream out) {
        String state = NodeCommands.text(details, "state");
        boolean ended = NodeCommands.number(details, "end-time") >= 0;
        out.println("Job " + NodeCommands.text(details, "name") + " (" + NodeCommands.text(details, "jid") + ")");
        out.println("Status: " + state + (ended ? ", ran " : ", up ") + NodeCommands.seconds(NodeCommands.number(details, "duration"))
                // the node knows the restart count once the job has ended
                + (ended && details.containsKey("restarts") ? ", restarts: " + details.getInt("restarts") : ""));
        if (details.get("node") instanceof JsonString node && !node.getString().isEmpty()) {
            out.println("Node: " + node.getString()); // on a cluster node: the member that runs it
        }
        if (details.get("failure-cause") instanceof JsonString cause) {
            out.println("Failure: " + cause.getString());
        }
        Map<String, String> plugins = new java.util.HashMap<>();
        if (details.get("plugin-versions") instanceof jakarta.json.JsonArray pv) {
            for (JsonObject p : pv.getValuesAs(JsonObject.class)) {
                String range = NodeCommands.text(p, "range");
                plugins.put(NodeCommands.text(p, "operator"), NodeCommands.text(p, "bundle") + " " + NodeCommands.text(p, "version")
                        + ("any".equals(range) ? "" : " (range " + range + ")"));
            }
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"OPERATOR", "TYPE", "KIND", "PARALLELISM", "INPUTS", "PLUGIN"}); // PLUGIN only if the node says
        for (JsonValue value : details.getJsonArray("vertices")) {
            JsonObject v = value.asJsonObject();
            String inputs = v.get("inputs") instanceof jakarta.json.JsonArray a && !a.isEmpty()
                    ? a.getValuesAs(JsonString.class).stream().map(JsonString::getString).collect(Collectors.joining(","))
                    : "-";
            rows.add(new String[] {NodeCommands.text(v, "id"), NodeCommands.text(v, "type"), NodeCommands.text(v, "kind"),
                String.valueOf(NodeCommands.number(v, "parallelism")), inputs, plugins.getOrDefault(NodeCommands.text(v, "id"), "-")});
        }
        int[] w = new int[6];
        for (String[] r : rows) {
            for (int i = 0; i < w.length; i++) {
                w[i] = Math.max(w[i], r[i].length());
            }
        }
        out.println("Operators:");
        for (String[] r : rows) {
            String line = String.format("  %-" + w[0] + "s  %-" + w[1] + "s  %-" + w[2] + "s  %" + w[3] + "s  %-" + w[4] + "s  %s",
                    (Object[]) r);
            out.println((plugins.isEmpty() ? String.format("  %-" + w[0] + "s  %-" + w[1] + "s  %-" + w[2] + "s  %" + w[3] + "s  %s",
                    (Object[]) r) : line).stripTrailing());
        }
        printUpgrades(details, out);
    }

    /** Prints the job's moves between plugin versions, if it had any: outcome, versions, downtime, savepoint, message. */
    static void printUpgrades(JsonObject details, PrintStream out) {
        if (!(details.get("upgrades") instanceof jakarta.json.JsonArray upgrades) || upgrades.isEmpty()) {
            return;
        }
        out.println("Plugin upgrades:");
        for (JsonObject u : upgrades.getValuesAs(JsonObject.class)) {
            long downtime = NodeCommands.number(u, "downtime-ms");
            String to = u.getJsonArray("to").getValuesAs(JsonString.class).stream().map(JsonString::getString)
                    .collect(Collectors.joining(", "));
            out.println("  " + NodeCommands.text(u, "outcome") + ": " + u.getJsonArray("from").getValuesAs(JsonString.class).stream()
                    .map(JsonString::getString).collect(Collectors.joining(", ")) + " -> " + (to.isEmpty() ? "(waiting)" : to)
                    + ", downtime " + (downtime < 0 ? "not measured" : downtime + " ms")
                    + (u.get("savepoint") instanceof JsonString sp ? ", savepoint " + sp.getString() : ""));
            if (u.get("message") instanceof JsonString m) {
                out.println("    " + m.getString());
            }
        }
    }

    /**
     * @return the checkpoint's statistics as {@link CheckpointTable} takes them, from the node's details and per-vertex
     *         subtask answers; null if the checkpoint left the node's history meanwhile (404)
     */
    static CompletedCheckpointStats checkpoint(NodeClient client, String jobPath, long checkpointId) {
        String path = jobPath + "/checkpoints/details/" + checkpointId;
        NodeClient.Answer a = client.send("GET", path, null, null);
        if (a.status() == 404) {
            return null;
        }
        JsonObject details = ok(a);
        Map<TaskId, SubtaskCheckpointMetrics> subtasks = new LinkedHashMap<>();
        for (String vertex : details.getJsonObject("tasks").keySet()) {
            NodeClient.Answer s = client.send("GET", path + "/subtasks/" + NodeCommands.encode(vertex), null, null);
            if (s.status() == 404) {
                return null;
            }
            for (JsonValue value : ok(s).getJsonArray("subtasks")) {
                JsonObject st = value.asJsonObject();
                JsonObject alignment = st.getJsonObject("alignment");
                JsonObject duration = st.getJsonObject("checkpoint");
                subtasks.put(new TaskId(vertex, st.getInt("index"), 0), new SubtaskCheckpointMetrics(
                        NodeCommands.number(st, "ack_timestamp"), NodeCommands.number(st, "start_delay"),
                        NodeCommands.number(alignment, "duration"), NodeCommands.number(duration, "sync"),
                        NodeCommands.number(duration, "async"), NodeCommands.number(st, "checkpointed_size"),
                        NodeCommands.number(alignment, "persisted"), NodeCommands.number(alignment, "processed"),
                        st.getBoolean("unaligned_checkpoint", false)));
            }
        }
        return new CompletedCheckpointStats(checkpointId, NodeCommands.number(details, "trigger_timestamp"),
                NodeCommands.number(details, "end_to_end_duration"), NodeCommands.number(details, "checkpointed_size"),
                NodeCommands.number(details, "persisted_data"), details.getBoolean("is_final", false), subtasks,
                details.getBoolean("is_savepoint", false), details.getString("external_path", null));
    }

    private static JsonObject get(NodeClient client, String path) {
        return ok(client.send("GET", path, null, null));
    }

    private static JsonObject ok(NodeClient.Answer a) {
        if (a.status() != 200) {
            throw new LauncherException(ExitCodes.FAILED, a.error());
        }
        return a.body();
    }
}
