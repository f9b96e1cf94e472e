package io.weir.cli.command;

import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.io.StringReader;
import java.util.Set;
import java.util.TreeSet;

/** Reads the plugin type names a job file uses ({@code operators[*].type}), before it is validated. */
public final class JobTypes {
    private JobTypes() {
    }

    /**
     * Lenient on purpose: whatever is malformed is left to {@code JobSpecParser}, which reports it
     * naming the field; here it only means fewer types to wait for.
     *
     * @param jobText the job file's content
     * @param json the JSON-P provider
     * @return the {@code type} strings of all operators, sorted; empty if the text is not a job-shaped JSON object
     */
    public static Set<String> named(String jobText, JsonProvider json) {
        Set<String> types = new TreeSet<>();
        try (JsonReader reader = json.createReader(new StringReader(jobText))) {
            JsonValue root = reader.readValue();
            if (!(root instanceof JsonObject o) || !(o.get("operators") instanceof jakarta.json.JsonArray ops)) {
                return types;
            }
            for (JsonValue op : ops) {
                if (op instanceof JsonObject opObject && opObject.get("type") instanceof JsonString type) {
                    types.add(type.getString());
                }
            }
        } catch (jakarta.json.JsonException e) {
            // not JSON: the parser says where
        }
        return types;
    }
}
