package io.weir.benchmarks;

import jakarta.json.JsonObject;
import jakarta.json.JsonWriter;
import jakarta.json.JsonWriterFactory;
import jakarta.json.spi.JsonProvider;

import java.io.PrintStream;
import java.io.StringWriter;
import java.util.Map;

/**
 * Writes one compact JSON object per line to the benchmark's result stream (stdout; logs go to
 * stderr). Thread-safe: lines written by the checkpoint listener and the main thread never interleave.
 */
public final class JsonLines {
    private final JsonWriterFactory writers;
    /** Guarded by {@code this}. */
    private final PrintStream out;

    /**
     * @param json the JSON-P provider
     * @param out where lines go; flushed after each line
     */
    public JsonLines(JsonProvider json, PrintStream out) {
        this.writers = json.createWriterFactory(Map.of());
        this.out = out;
    }

    /** Writes {@code object} and a newline, then flushes. */
    public void write(JsonObject object) {
        StringWriter text = new StringWriter();
        try (JsonWriter w = writers.createWriter(text)) {
            w.writeObject(object);
        }
        synchronized (this) {
            out.println(text);
            out.flush();
        }
    }
}
