package io.weir.plugin.postgres;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.List;
import java.util.TimeZone;

/**
 * The SQL of one sink ({@code INSERT} or upsert of every row field into the column of the same name)
 * and the binding of a row's values to its parameters, by field type: {@code long}/{@code int}/
 * {@code double}/{@code boolean}/{@code string}/{@code bytes} as such, {@code timestamp} (ms since the
 * epoch) as a {@code timestamp} in UTC. Immutable apart from the shared UTC calendar, which the JDBC
 * driver only reads; used on the sink task's thread.
 */
final class RowBinder {
    private final Schema schema;
    private final String sql;
    private final Calendar utc = Calendar.getInstance(TimeZone.getTimeZone("UTC"));

    RowBinder(PostgresSinkSettings settings, Schema schema) {
        this.schema = schema;
        List<String> cols = new ArrayList<>();
        List<String> params = new ArrayList<>();
        for (String name : schema.names()) {
            cols.add(PostgresSinkSettings.quote(name));
            params.add("?");
        }
        StringBuilder sb = new StringBuilder("INSERT INTO ").append(settings.quotedTable()).append(" (")
                .append(String.join(", ", cols)).append(") VALUES (").append(String.join(", ", params)).append(')');
        if (settings.mode() == PostgresSinkSettings.Mode.UPSERT) {
            List<String> keys = settings.key().stream().map(PostgresSinkSettings::quote).toList();
            List<String> updates = new ArrayList<>();
            for (String name : schema.names()) {
                if (!settings.key().contains(name)) {
                    updates.add(PostgresSinkSettings.quote(name) + " = EXCLUDED." + PostgresSinkSettings.quote(name));
                }
            }
            sb.append(" ON CONFLICT (").append(String.join(", ", keys)).append(") DO ")
                    .append(updates.isEmpty() ? "NOTHING" : "UPDATE SET " + String.join(", ", updates));
        }
        this.sql = sb.toString();
    }

    /** @return the statement, with one parameter per row field in schema order */
    String sql() {
        return sql;
    }

    /** Sets the parameters of {@code statement} to the values of {@code row}. */
    void bind(PreparedStatement statement, Row row) throws SQLException {
        for (int i = 0; i < schema.size(); i++) {
            FieldType type = schema.field(i).type();
            Object v = row.get(i);
            int p = i + 1;
            if (v == null) {
                statement.setNull(p, sqlType(type));
                continue;
            }
            switch (type) {
                case LONG -> statement.setLong(p, (Long) v);
                case INT -> statement.setInt(p, (Integer) v);
                case DOUBLE -> statement.setDouble(p, (Double) v);
                case BOOLEAN -> statement.setBoolean(p, (Boolean) v);
                case STRING -> statement.setString(p, (String) v);
                case BYTES -> statement.setBytes(p, (byte[]) v);
                case TIMESTAMP -> statement.setTimestamp(p, new Timestamp((Long) v), utc);
            }
        }
    }

    private static int sqlType(FieldType type) {
        return switch (type) {
            case LONG -> Types.BIGINT;
            case INT -> Types.INTEGER;
            case DOUBLE -> Types.DOUBLE;
            case BOOLEAN -> Types.BOOLEAN;
            case STRING -> Types.VARCHAR;
            case BYTES -> Types.BINARY;
            case TIMESTAMP -> Types.TIMESTAMP;
        };
    }
}
