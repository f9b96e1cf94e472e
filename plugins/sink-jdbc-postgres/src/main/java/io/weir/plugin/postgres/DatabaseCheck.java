package io.weir.plugin.postgres;

import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks, before a job starts, that the sink can work against the server: it is reachable, accepts
 * the user, allows prepared transactions ({@code max_prepared_transactions > 0}), has the table with
 * a column for every row field, and (upsert) a unique index or primary key on exactly the key columns.
 * Stateless.
 */
final class DatabaseCheck {
    private DatabaseCheck() {
    }

    /**
     * @throws IllegalArgumentException naming the config field and what is wrong, e.g.
     *         {@code operators[2].config.url cannot connect to PostgreSQL at 127.0.0.1:1 (...)} or
     *         {@code operators[2].config.table "public"."flights" has no column "delay" ...}
     */
    static void check(PluginConfig config, PostgresSinkSettings settings, Schema input) {
        Connector connector = new Connector(settings);
        try (Connection c = connector.connect("weir validate " + config.path())) {
            long maxPrepared;
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW max_prepared_transactions")) {
                rs.next();
                maxPrepared = Long.parseLong(rs.getString(1));
            }
            if (maxPrepared == 0) {
                throw config.error("url", "names a server (" + connector.address() + ") with max_prepared_transactions = 0, which"
                        + " refuses PREPARE TRANSACTION: set max_prepared_transactions in postgresql.conf to at least the sink's"
                        + " parallelism times (max-concurrent-checkpoints + 1), and restart the server");
            }
            String regclass;
            try (PreparedStatement s = c.prepareStatement("SELECT to_regclass(?)::text")) {
                s.setString(1, settings.quotedTable());
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    regclass = rs.getString(1);
                }
            }
            if (regclass == null) {
                throw config.error("table", "'" + settings.table() + "' does not exist in database '" + connector.database() + "' at "
                        + connector.address() + " (as user '" + settings.user() + "'): create it (names are case-sensitive)");
            }
            Set<String> columns = new LinkedHashSet<>();
            try (PreparedStatement s = c.prepareStatement("SELECT attname FROM pg_attribute WHERE attrelid = ?::regclass"
                    + " AND attnum > 0 AND NOT attisdropped ORDER BY attnum")) {
                s.setString(1, settings.quotedTable());
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        columns.add(rs.getString(1));
                    }
                }
            }
            List<String> missing = new ArrayList<>();
            for (String field : input.names()) {
                if (!columns.contains(field)) {
                    missing.add(field);
                }
            }
            if (!missing.isEmpty()) {
                throw config.error("table", "'" + settings.table() + "' has no column " + String.join(", ", missing)
                        + " for the row field(s) of that name; its columns: " + columns + " (names are case-sensitive)");
            }
            if (settings.mode() == PostgresSinkSettings.Mode.UPSERT && !hasUniqueIndexOn(c, settings)) {
                throw config.error("key", settings.key() + " is not the column set of a primary key or unique index of table '"
                        + settings.table() + "', which INSERT ... ON CONFLICT needs: add one (e.g. ALTER TABLE ... ADD PRIMARY KEY ("
                        + String.join(", ", settings.key()) + "))");
            }
        } catch (Connector.ConnectException e) {
            throw config.error(e.getMessage().contains("refused user") ? "user" : "url", "failed: " + e.getMessage());
        } catch (SQLException e) {
            throw config.error("table", "cannot be checked at " + connector.address() + ": " + e.getMessage()
                    + " (SQLState " + e.getSQLState() + ")");
        }
    }

    private static boolean hasUniqueIndexOn(Connection c, PostgresSinkSettings settings) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT array_agg(a.attname::text) FROM pg_index i"
                + " JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)"
                + " WHERE i.indrelid = ?::regclass AND i.indisunique AND i.indpred IS NULL GROUP BY i.indexrelid")) {
            s.setString(1, settings.quotedTable());
            try (ResultSet rs = s.executeQuery()) {
                Set<String> wanted = new TreeSet<>(settings.key());
                while (rs.next()) {
                    String[] cols = (String[]) rs.getArray(1).getArray();
                    if (new TreeSet<>(List.of(cols)).equals(wanted)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }
}
