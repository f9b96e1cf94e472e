package io.weir.plugin.postgres;

import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.PluginSetting;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.sink.TwoPhaseCommittingSink;
import org.osgi.service.component.annotations.Component;

import java.util.List;

/**
 * The {@code jdbc-postgres} sink: exactly-once rows into a PostgreSQL table through prepared
 * transactions. See {@link PostgresSinkSettings} for the settings and {@link PostgresSink} for the
 * protocol. Stateless and thread-safe.
 */
@Component(service = SinkFactory.class, property = "weir.plugin.type=" + PostgresSinkFactory.TYPE)
public final class PostgresSinkFactory implements SinkFactory {
    /** The type name in job files. */
    public static final String TYPE = "jdbc-postgres";

    /** The settings {@link #settings()} describes, as docs/connectors-postgres.md lists them. */
    static final List<PluginSetting> SETTINGS = List.of(
            PluginSetting.required("url", "string", "JDBC URL jdbc:postgresql://host:port/database (pgjdbc parameters allowed)"),
            PluginSetting.required("user", "string", "database user"),
            PluginSetting.optional("password", "string", null, "the password itself (at most one of password, password-env, password-file)"),
            PluginSetting.optional("password-env", "string", null, "name of an environment variable holding the password"),
            PluginSetting.optional("password-file", "string", null,
                    "file (relative to the job file) whose content, without a trailing line break, is the password"),
            PluginSetting.required("table", "string", "table or schema.table (quoted: case-sensitive); each row field goes to the column of its name"),
            PluginSetting.optional("mode", "string", "insert", "insert (each row a new table row) or upsert (INSERT ... ON CONFLICT (key) DO UPDATE)"),
            PluginSetting.optional("key", "list of strings", null,
                    "upsert only: the columns of a primary key or unique index of the table; partition the input by them"),
            PluginSetting.optional("batch-size", "long", "500", "rows sent per JDBC batch, 1..100000"),
            PluginSetting.optional("connect-timeout-s", "long", "10", "connect and login timeout in seconds, 1..3600"),
            PluginSetting.optional("commit-attempts", "long", "3",
                    "tries of a COMMIT/ROLLBACK PREPARED whose connection failed, and of connecting when a subtask starts, 1..100"),
            PluginSetting.optional("retry-backoff-ms", "long", "500", "ms before the second try, doubled before each further one, 0..60000"),
            PluginSetting.optional("allow-without-checkpointing", "boolean", "false",
                    "start even without execution.checkpointing.interval (then only a bounded job's final checkpoint commits)"),
            PluginSetting.optional("debug.inject-delay.before-commit-prepared", "long", "0",
                    "testing aid: ms each subtask waits before its first COMMIT PREPARED (to kill the process there)"),
            PluginSetting.optional("lock-timeout-ms", "long", "30000",
                    "the write session's lock_timeout in ms (0 = none): a longer row-lock wait fails the task, which restarts"));

    /** Public no-arg constructor for DS and {@link java.util.ServiceLoader}. */
    public PostgresSinkFactory() {
    }

    @Override
    public String type() {
        return TYPE;
    }

    /** @return the settings of this type's {@code config}, as docs/connectors-postgres.md describes them */
    @Override
    public List<PluginSetting> settings() {
        return SETTINGS;
    }

    /**
     * Reads the settings and checks them against the server (it connects once): before the job
     * starts, an unreachable server, a refused user, a missing table or column, or a missing unique
     * index for upsert is reported.
     *
     * @throws IllegalArgumentException naming the config field and the problem (see {@link PostgresSinkSettings#from}
     *         and {@link DatabaseCheck#check})
     */
    @Override
    public void validate(PluginConfig config, Schema input) {
        PostgresSinkSettings settings = PostgresSinkSettings.from(config, input, System::getenv);
        DatabaseCheck.check(config, settings, input);
    }

    /** @throws IllegalArgumentException as {@link PostgresSinkSettings#from}; does not connect */
    @Override
    public TwoPhaseCommittingSink<PostgresTransaction> create(PluginConfig config, Schema input) {
        return new PostgresSink(PostgresSinkSettings.from(config, input, System::getenv), input);
    }
}
