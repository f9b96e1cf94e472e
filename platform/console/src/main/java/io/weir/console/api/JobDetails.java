package io.weir.console.api;

import io.weir.console.diagnosis.CheckpointStats;
import io.weir.console.diagnosis.Diagnoser;
import io.weir.console.diagnosis.Diagnosis;
import io.weir.console.diagnosis.SubtaskStats;
import io.weir.console.node.NodeClient;
import io.weir.console.node.NodeErrorException;
import io.weir.console.node.NodeJson;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Assembles the job page's data from the node: the job (vertices with parallelism and inputs), its checkpoint history
 * and options, the per-subtask table of one checkpoint and the {@link Diagnoser diagnosis} of it. Stateless.
 */
@ApplicationScoped
public class JobDetails {
    private final Diagnoser diagnoser = new Diagnoser();

    /**
     * @param node the node
     * @param job the job's id or unique name
     * @param cid the checkpoint to detail; empty: the latest completed one
     * @return {@code {"node", "job", "checkpoints", "config", "chosen" (id or absent), "subtasks": [...], "diagnosis": {cause, checkpointId, text}}}
     */
    public JsonObject page(NodeClient node, String job, Optional<Long> cid) {
        JsonObject jobJson = node.call(api -> api.job(job));
        String id = jobJson.getString("jid");
        JsonObject checkpoints = node.call(api -> api.checkpoints(id));
        JsonObject config = node.call(api -> api.checkpointConfig(id));
        JsonObject latest = checkpoints.getJsonObject("latest");
        Optional<Long> chosenId = cid.isPresent() ? cid
                : Optional.ofNullable(latest == null ? null : latest.getJsonObject("completed")).map(c -> c.getJsonNumber("id").longValue());
        Optional<CheckpointStats> chosen = Optional.empty();
        if (chosenId.isPresent()) {
            chosen = details(node, id, chosenId.get(), NodeJson.sources(jobJson));
        }
        Diagnosis d = diagnoser.diagnose(NodeJson.history(checkpoints), chosen, NodeJson.config(config), NodeJson.inputs(jobJson));
        JsonObjectBuilder out = Json.createObjectBuilder().add("node", node.name()).add("job", jobJson).add("checkpoints", checkpoints)
                .add("config", config).add("subtasks", table(chosen))
                .add("diagnosis", Json.createObjectBuilder().add("cause", d.cause().name()).add("checkpointId", d.checkpointId()).add("text", d.text()));
        chosen.ifPresent(c -> out.add("chosen", c.id()));
        return out.build();
    }

    /** The checkpoint with every task's subtasks; empty when the node no longer has it or it failed (no subtask data). */
    private Optional<CheckpointStats> details(NodeClient node, String id, long cid, Map<String, Boolean> sources) {
        JsonObject details;
        try {
            details = node.call(api -> api.checkpointDetails(id, cid));
        } catch (NodeErrorException e) {
            if (e.status() == 404) {
                return Optional.empty();
            }
            throw e;
        }
        List<SubtaskStats> subtasks = new ArrayList<>();
        if ("COMPLETED".equals(details.getString("status", ""))) {
            for (String vertex : NodeJson.taskVertices(details)) {
                JsonObject answer = node.call(api -> api.subtasks(id, cid, vertex));
                subtasks.addAll(NodeJson.subtasks(answer, vertex, sources.getOrDefault(vertex, false)));
            }
        }
        return Optional.of(NodeJson.checkpoint(details, subtasks));
    }

    /** The per-subtask table of docs/checkpoint-stats.md, one object per row. */
    private static JsonArrayBuilder table(Optional<CheckpointStats> chosen) {
        JsonArrayBuilder rows = Json.createArrayBuilder();
        chosen.ifPresent(c -> c.subtasks().forEach(s -> rows.add(Json.createObjectBuilder()
                .add("vertex", s.vertex()).add("subtask", s.index()).add("start_delay", s.startDelayMs()).add("alignment", s.alignmentMs())
                .add("sync", s.syncMs()).add("async", s.asyncMs()).add("end_to_end", s.endToEndMs()).add("size", s.stateSize())
                .add("persisted", s.persistedBytes()).add("unaligned", s.unaligned()))));
        return rows;
    }
}
