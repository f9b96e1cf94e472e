package io.weir.launcher;

import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code weir cluster}: the cluster a node started with {@code --cluster} belongs to, as that node sees it
 * ({@code GET /cluster}, docs/ha.md): its members oldest first with their REST URL, member address, role (leader, the
 * node asked) and the jobs the job store assigns to each, then whether every backup is in sync. Read-only: no token.
 */
@Command(name = "cluster", mixinStandardHelpOptions = true,
        description = {"Lists the members of a node's cluster (GET /cluster): REST URL, member address, leader, and the jobs each "
            + "runs; then whether the cluster is safe (every backup in sync: only then may another node be stopped)."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:listed", "1:no node is running, or it was not started with --cluster", "2:bad option"},
        footer = "%nDocs: docs/ha.md, docs/rest-api.md (Cluster).")
final class ClusterCommand implements Callable<Integer> {
    @ParentCommand
    Launcher.Weir parent;

    @Mixin
    NodeCommands.ClientOptions options;

    @Override
    public Integer call() {
        NodeClient client = options.client();
        NodeClient.Answer a = client.send("GET", "/cluster", null, null);
        if (a.status() == 404) {
            throw new LauncherException(ExitCodes.FAILED, "the node at " + client.base() + " is not in a cluster (it was started"
                    + " without --cluster): use 'weir list' for its jobs");
        }
        if (a.status() != 200) {
            throw new LauncherException(ExitCodes.FAILED, a.error());
        }
        print(a.body(), parent.out);
        return ExitCodes.OK;
    }

    /**
     * Prints the answer of {@code GET /cluster}: a summary line, a table of members, and the safety line.
     *
     * @param cluster the answer ({@code name}, {@code quorum}, {@code configured}, {@code members}, {@code safe})
     * @param out where to print
     */
    static void print(JsonObject cluster, PrintStream out) {
        List<JsonValue> members = cluster.getJsonArray("members");
        out.println("Cluster " + NodeCommands.text(cluster, "name") + ": " + members.size() + " of "
                + NodeCommands.number(cluster, "configured") + " configured members (a majority is "
                + NodeCommands.number(cluster, "quorum") + ")");
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"NODE", "MEMBER", "ROLE", "JOBS"});
        for (JsonValue v : members) {
            JsonObject m = v.asJsonObject();
            List<String> roles = new ArrayList<>();
            if (m.getBoolean("leader", false)) {
                roles.add("leader");
            }
            if (m.getBoolean("self", false)) {
                roles.add("asked");
            }
            List<String> jobs = m.getJsonArray("jobs").getValuesAs(JsonString.class).stream().map(JsonString::getString).toList();
            rows.add(new String[] {NodeCommands.text(m, "url"), NodeCommands.text(m, "address"), roles.isEmpty() ? "-" : String.join(",", roles),
                    jobs.isEmpty() ? "-" : String.join(", ", jobs)});
        }
        int[] w = new int[3];
        for (String[] r : rows) {
            for (int i = 0; i < w.length; i++) {
                w[i] = Math.max(w[i], r[i].length());
            }
        }
        for (String[] r : rows) {
            out.println(String.format("%-" + w[0] + "s  %-" + w[1] + "s  %-" + w[2] + "s  %s", (Object[]) r).stripTrailing());
        }
        if (cluster.containsKey("safe")) {
            out.println(cluster.getBoolean("safe") ? "Safe: every backup is in sync"
                    : "Not safe yet: partitions are still being copied; stopping another node now may lose jobs");
        }
    }
}
