package io.weir.plugin.postgres;

import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * The validated configuration of a {@code jdbc-postgres} sink. Every row field is written to the
 * column of the same name; names are used exactly as given (quoted), so they are case-sensitive.
 * {@link #toString()} never shows the password.
 *
 * @param url JDBC URL, {@code jdbc:postgresql://host:port/database} ({@code url})
 * @param user database user ({@code user})
 * @param password the password, or null for none (trust or peer authentication): from {@code password},
 *        the environment variable named by {@code password-env}, or the file named by {@code password-file}
 *        (its content without the trailing line break)
 * @param table target table, optionally {@code schema.table} ({@code table})
 * @param mode {@code insert} (default) or {@code upsert} ({@code mode})
 * @param key the key columns of {@code upsert} ({@code key}): row fields covered by a unique index or
 *        primary key of the table; empty for {@code insert}
 * @param batchSize rows sent to the server per JDBC batch ({@code batch-size}, default 500, at least 1)
 * @param connectTimeoutSeconds how long connecting may take ({@code connect-timeout-s}, default 10, 1..3600)
 * @param commitAttempts tries of a {@code COMMIT PREPARED} whose connection failed, and of connecting when a
 *        sink opens ({@code commit-attempts}, default 3, 1..100)
 * @param retryBackoffMs wait before the second try, doubled before each further one ({@code retry-backoff-ms},
 *        default 500, 0..60000)
 * @param allowWithoutCheckpointing start even when {@code execution.checkpointing.interval} is unset
 *        ({@code allow-without-checkpointing}, default false): rows are then committed only by a bounded
 *        job's final checkpoint
 * @param holdBeforeCommitMs testing aid ({@code debug.inject-delay.before-commit-prepared}, default 0): each
 *        sink instance waits this long before its first {@code COMMIT PREPARED}, after the transaction was
 *        prepared and its checkpoint completed, so a test can kill the process exactly there
 * @param lockTimeoutMs longest wait of a write for a row lock ({@code lock-timeout-ms}, default 30000, 0 = no
 *        limit): the session's {@code lock_timeout}. A write blocked by a lock of a prepared transaction that
 *        only this task's thread could commit would otherwise wait forever; past the timeout the task fails and
 *        restarts from the latest checkpoint, whose restore commits that transaction first
 */
public record PostgresSinkSettings(String url, String user, String password, String table, Mode mode, List<String> key,
        int batchSize, int connectTimeoutSeconds, int commitAttempts, long retryBackoffMs, boolean allowWithoutCheckpointing,
        long holdBeforeCommitMs, long lockTimeoutMs) {

    /** How rows are written. */
    public enum Mode {
        /** {@code INSERT}: every row is a new table row. */
        INSERT,
        /** {@code INSERT ... ON CONFLICT (key) DO UPDATE}: the row replaces the table row with the same key. */
        UPSERT
    }

    /** @throws IllegalArgumentException if a value is out of range or upsert has no key */
    public PostgresSinkSettings {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(mode, "mode");
        key = List.copyOf(key);
        if (mode == Mode.UPSERT && key.isEmpty()) {
            throw new IllegalArgumentException("mode upsert needs key columns");
        }
        if (batchSize < 1 || connectTimeoutSeconds < 1 || commitAttempts < 1 || retryBackoffMs < 0 || holdBeforeCommitMs < 0
                || lockTimeoutMs < 0) {
            throw new IllegalArgumentException("batch size, connect timeout and commit attempts must be >= 1, backoff and hold >= 0");
        }
    }

    /**
     * Reads and checks the settings (without connecting; see {@link DatabaseCheck}).
     *
     * @param config the sink's config
     * @param input the schema of the rows written: every field must be a column
     * @param env environment variable lookup ({@code System::getenv} in production)
     * @throws IllegalArgumentException naming the config field, e.g. {@code operators[2].config.mode must be
     *         insert or upsert, got 'merge'}, or {@code ...password-env names environment variable PGPW, which is not set}
     */
    public static PostgresSinkSettings from(PluginConfig config, Schema input, UnaryOperator<String> env) {
        // ask for every setting first, so that an unknown key is reported with all settings known
        for (String k : List.of("url", "user", "password", "password-env", "password-file", "table", "mode", "key", "batch-size",
                "connect-timeout-s", "commit-attempts", "retry-backoff-ms", "allow-without-checkpointing",
                "debug.inject-delay.before-commit-prepared", "lock-timeout-ms")) {
            config.has(k);
        }
        String url = config.requireString("url");
        if (!url.startsWith("jdbc:postgresql:")) {
            throw config.error("url", "must be a PostgreSQL JDBC URL such as jdbc:postgresql://127.0.0.1:5432/mydb, got '" + url + "'");
        }
        String user = config.requireString("user");
        if (user.isBlank()) {
            throw config.error("user", "must not be empty");
        }
        String password = password(config, env);
        String table = config.requireString("table");
        if (table.isBlank() || table.split("\\.", -1).length > 2 || List.of(table.split("\\.", -1)).contains("")) {
            throw config.error("table", "must be a table name or schema.table, got '" + table + "'");
        }
        String modeName = config.getString("mode", "insert");
        Mode mode;
        try {
            mode = Mode.valueOf(modeName.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw config.error("mode", "must be insert or upsert, got '" + modeName + "'");
        }
        List<String> key = config.getStringList("key", List.of());
        if (mode == Mode.UPSERT && key.isEmpty()) {
            throw config.error("key", "is required with mode upsert: the columns of the table's primary key or unique index,"
                    + " e.g. \"key\": [\"origin\"]");
        }
        if (mode == Mode.INSERT && !key.isEmpty()) {
            throw config.error("key", "is only used with mode upsert; remove it or set \"mode\": \"upsert\"");
        }
        for (String k : key) {
            if (input.indexOf(k) < 0) {
                throw config.error("key", "names '" + k + "', which is not a field of the input rows " + input.names());
            }
        }
        if (key.stream().distinct().count() != key.size()) {
            throw config.error("key", "lists a column twice: " + key);
        }
        int batchSize = (int) range(config, "batch-size", 500, 1, 100_000);
        int connectTimeout = (int) range(config, "connect-timeout-s", 10, 1, 3600);
        int attempts = (int) range(config, "commit-attempts", 3, 1, 100);
        long backoff = range(config, "retry-backoff-ms", 500, 0, 60_000);
        boolean allow = config.getBoolean("allow-without-checkpointing", false);
        long hold = range(config, "debug.inject-delay.before-commit-prepared", 0, 0, 3_600_000);
        long lockTimeout = range(config, "lock-timeout-ms", 30_000, 0, 3_600_000);
        if (input.size() == 0) {
            throw new IllegalArgumentException(config.path() + ": the input rows have no fields to write");
        }
        return new PostgresSinkSettings(url, user, password, table, mode, key, batchSize, connectTimeout, attempts, backoff, allow, hold,
                lockTimeout);
    }

    private static String password(PluginConfig config, UnaryOperator<String> env) {
        boolean literal = config.has("password");
        boolean fromEnv = config.has("password-env");
        boolean fromFile = config.has("password-file");
        if ((literal ? 1 : 0) + (fromEnv ? 1 : 0) + (fromFile ? 1 : 0) > 1) {
            throw config.error("password", "is given more than once: use one of password, password-env, password-file");
        }
        if (literal) {
            return config.requireString("password");
        }
        if (fromEnv) {
            String name = config.requireString("password-env");
            String value = env.apply(name);
            if (value == null) {
                throw config.error("password-env", "names environment variable " + name + ", which is not set");
            }
            return value;
        }
        if (fromFile) {
            Path file = config.requirePath("password-file");
            try {
                return Files.readString(file, StandardCharsets.UTF_8).replaceFirst("\\R\\z", "");
            } catch (IOException e) {
                throw config.error("password-file", "cannot be read: " + file + " (" + e.getClass().getSimpleName() + ")");
            }
        }
        return null;
    }

    private static long range(PluginConfig config, String key, long fallback, long min, long max) {
        long v = config.getLong(key, fallback);
        if (v < min || v > max) {
            throw config.error(key, "must be between " + min + " and " + max + ", got " + v);
        }
        return v;
    }

    /** @return the table name as SQL: each part double-quoted */
    String quotedTable() {
        StringBuilder sb = new StringBuilder();
        for (String part : table.split("\\.")) {
            if (sb.length() > 0) {
                sb.append('.');
            }
            sb.append(quote(part));
        }
        return sb.toString();
    }

    /** @return {@code name} as a quoted SQL identifier */
    static String quote(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    /** @return the URL without its parameters ({@code ?...}), which may carry a password: for messages and logs */
    String redactedUrl() {
        int q = url.indexOf('?');
        return q < 0 ? url : url.substring(0, q) + "?...";
    }

    /** The settings without the password (nor the URL's parameters). */
    @Override
    public String toString() {
        return "PostgresSinkSettings[url=" + redactedUrl() + ", user=" + user + ", password=" + (password == null ? "none" : "****")
                + ", table=" + table + ", mode=" + mode + ", key=" + key + ", batchSize=" + batchSize + "]";
    }
}
