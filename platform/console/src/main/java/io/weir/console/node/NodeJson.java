package io.weir.console.node;

import io.weir.console.diagnosis.CheckpointStats;
import io.weir.console.diagnosis.CheckpointingConfig;
import io.weir.console.diagnosis.SubtaskStats;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the node's REST answers (docs/rest-api.md, Flink's field names) into the diagnosis records. Stateless.
 * Every method throws {@link IllegalArgumentException} naming the field when a required field is missing or has the
 * wrong type (the node and the console disagree on the API).
 */
public final class NodeJson {
    private NodeJson() {
    }

    /**
     * @param history one entry of {@code history} in {@code GET /jobs/:id/checkpoints} (or {@code latest.completed})
     * @return its totals, without subtasks
     */
    public static CheckpointStats checkpoint(JsonObject history) {
        return checkpoint(history, List.of());
    }

    /**
     * @param checkpoint a checkpoint of the history, or the answer of {@code GET .../checkpoints/details/:cid}
     * @param subtasks its subtasks (from {@link #subtasks}), possibly empty
     * @return the checkpoint with those subtasks
     */
    public static CheckpointStats checkpoint(JsonObject checkpoint, List<SubtaskStats> subtasks) {
        boolean completed = "COMPLETED".equals(string(checkpoint, "status"));
        return new CheckpointStats(number(checkpoint, "id"), completed, checkpoint.getBoolean("is_savepoint", false),
                checkpoint.containsKey("end_to_end_duration") ? number(checkpoint, "end_to_end_duration") : -1,
                Math.max(0, checkpoint.containsKey("state_size") ? number(checkpoint, "state_size") : 0),
                Math.max(0, checkpoint.containsKey("persisted_data") ? number(checkpoint, "persisted_data") : 0),
                completed ? null : checkpoint.getString("failure_message", null), subtasks);
    }

    /** @return every entry of {@code history}, newest first, as the node lists them */
    public static List<CheckpointStats> history(JsonObject checkpoints) {
        List<CheckpointStats> out = new ArrayList<>();
        for (JsonValue v : checkpoints.getJsonArray("history")) {
            out.add(checkpoint(v.asJsonObject()));
        }
        return out;
    }

    /**
     * @param answer the answer of {@code GET .../checkpoints/details/:cid/subtasks/:vertex}
     * @param vertex the vertex id asked for
     * @param source whether that vertex is a source
     * @return one record per subtask, by index
     */
    public static List<SubtaskStats> subtasks(JsonObject answer, String vertex, boolean source) {
        List<SubtaskStats> out = new ArrayList<>();
        for (JsonValue v : answer.getJsonArray("subtasks")) {
            JsonObject s = v.asJsonObject();
            JsonObject alignment = s.getJsonObject("alignment");
            JsonObject phases = s.getJsonObject("checkpoint");
            out.add(new SubtaskStats(vertex, (int) number(s, "index"), source, number(s, "start_delay"),
                    number(alignment, "duration"), number(phases, "sync"), number(phases, "async"),
                    number(s, "end_to_end_duration"), number(s, "state_size"), number(alignment, "persisted"),
                    s.getBoolean("unaligned_checkpoint", false)));
        }
        return out;
    }

    /** @return the vertex ids that report as tasks in {@code GET .../checkpoints/details/:cid}, in the job's order */
    public static Set<String> taskVertices(JsonObject details) {
        JsonObject tasks = details.getJsonObject("tasks");
        return tasks == null ? Set.of() : new java.util.LinkedHashSet<>(tasks.keySet());
    }

    /** @return vertex id → whether it is a source, from {@code GET /jobs/:id}'s {@code vertices} */
    public static Map<String, Boolean> sources(JsonObject job) {
        Map<String, Boolean> out = new java.util.LinkedHashMap<>();
        if (job.containsKey("vertices")) {
            for (JsonValue v : job.getJsonArray("vertices")) {
                JsonObject vertex = v.asJsonObject();
                out.put(string(vertex, "id"), "source".equals(vertex.getString("kind", "")));
            }
        }
        return out;
    }

    /** @return vertex id → the ids of its inputs, from {@code GET /jobs/:id}'s {@code vertices} */
    public static Map<String, List<String>> inputs(JsonObject job) {
        Map<String, List<String>> out = new java.util.LinkedHashMap<>();
        if (job.containsKey("vertices")) {
            for (JsonValue v : job.getJsonArray("vertices")) {
                JsonObject vertex = v.asJsonObject();
                out.put(string(vertex, "id"), vertex.containsKey("inputs")
                        ? vertex.getJsonArray("inputs").getValuesAs(jakarta.json.JsonString.class).stream().map(jakarta.json.JsonString::getString).toList()
                        : List.of());
            }
        }
        return out;
    }

    /** @return the options of {@code GET /jobs/:id/checkpoints/config} */
    public static CheckpointingConfig config(JsonObject config) {
        return new CheckpointingConfig(number(config, "interval"), config.containsKey("min_pause") ? number(config, "min_pause") : 0,
                config.getBoolean("unaligned_checkpoints", false));
    }

    static long number(JsonObject o, String field) {
        if (o == null || !o.containsKey(field) || o.get(field).getValueType() != JsonValue.ValueType.NUMBER) {
            throw new IllegalArgumentException("the node's answer has no number '" + field + "': " + o);
        }
        return o.getJsonNumber(field).longValue();
    }

    static String string(JsonObject o, String field) {
        if (o == null || !o.containsKey(field) || o.get(field).getValueType() != JsonValue.ValueType.STRING) {
            throw new IllegalArgumentException("the node's answer has no string '" + field + "': " + o);
        }
        return o.getString(field);
    }
}
