package io.weir.plugin.postgres;

import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.sink.TwoPhaseCommittingSink;
import org.osgi.service.component.annotations.Component;

/**
 * The {@code jdbc-postgres} sink: exactly-once rows into a PostgreSQL table through prepared
 * transactions. See {@link PostgresSinkSettings} for the settings and {@link PostgresSink} for the
 * protocol. Stateless and thread-safe.
 */
@Component(service = SinkFactory.class, property = "weir.plugin.type=" + PostgresSinkFactory.TYPE)
public final class PostgresSinkFactory implements SinkFactory {
    /** The type name in job files. */
    public static final String TYPE = "jdbc-postgres";

    /** Public no-arg constructor for DS and {@link java.util.ServiceLoader}. */
    public PostgresSinkFactory() {
    }

    @Override
    public String type() {
        return TYPE;
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
