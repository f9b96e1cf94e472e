package io.weir.plugin.kafkasink;

import io.weir.api.Row;
import io.weir.api.Schema;

import java.nio.charset.StandardCharsets;

/**
 * Turns a row into a Kafka record's key and value as the sink's settings say: the key is the {@code key-field}'s
 * value as UTF-8 text (null without one), the value one JSON object ({@code format: json}) or the single string
 * or bytes field ({@code format: raw}). Not thread-safe (reuses a buffer): one per sink instance.
 */
final class RecordEncoder {
    private final boolean raw;
    private final int keyIndex;
    private final io.weir.api.RowJsonEncoder json;
    private final StringBuilder buffer = new StringBuilder(256);

    /** @param schema the schema of the rows; the settings were validated against it */
    RecordEncoder(KafkaSinkSettings settings, Schema schema) {
        this.raw = settings.format().equals("raw");
        this.keyIndex = settings.keyField() == null ? -1 : schema.indexOf(settings.keyField());
        this.json = new io.weir.api.RowJsonEncoder(schema);
    }

    /** @return the record key, or null */
    byte[] key(Row row) {
        if (keyIndex < 0) {
            return null;
        }
        Object k = row.get(keyIndex);
        return k == null ? null : String.valueOf(k).getBytes(StandardCharsets.UTF_8);
    }

    /** @return the record value, or null for a raw null */
    byte[] value(Row row) {
        if (raw) {
            Object v = row.get(0);
            return v == null ? null : v instanceof byte[] b ? b : ((String) v).getBytes(StandardCharsets.UTF_8);
        }
        buffer.setLength(0);
        json.append(row, buffer);
        return buffer.toString().getBytes(StandardCharsets.UTF_8);
    }
}
