package io.weir.rest.resource;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;

import java.io.StringReader;

/** Serializes a view the way the node does (JSON-B, Yasson) and reads it back as JSON-P to check field names. */
public final class JsonContract {
    private static final Jsonb JSONB = JsonbBuilder.create();

    private JsonContract() {
    }

    /** @param view a view record @return it as JSON-B writes it, read back */
    public static JsonObject json(Object view) {
        try (JsonReader r = Json.createReader(new StringReader(JSONB.toJson(view)))) {
            return r.readObject();
        }
    }
}
