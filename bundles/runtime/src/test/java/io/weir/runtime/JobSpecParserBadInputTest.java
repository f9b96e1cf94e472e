package io.weir.runtime;

import io.weir.core.job.InvalidJobException;
import io.weir.core.job.JobSpecParser;
import io.weir.core.plugin.MapPluginRegistry;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Bad job files get one clear error naming the field, before anything starts. Uses the real
 * plugins found through ServiceLoader, so plugin-level validation (a missing input file) is real.
 */
class JobSpecParserBadInputTest {
    @TempDir
    Path tmp;

    private final JobSpecParser parser = new JobSpecParser(MapPluginRegistry.fromServiceLoader(getClass().getClassLoader()),
            JsonProvider.provider());

    private static String job(String operators) {
        return "{\"name\": \"j\", \"operators\": [" + operators + "]}";
    }

    private static final String SOURCE = "{\"id\": \"src\", \"type\": \"datagen\", \"config\": {\"limit\": 10}}";
    private static final String SINK = "{\"id\": \"out\", \"type\": \"discard\", \"inputs\": [\"src\"]}";

    @Test
    void invalidJsonNamesLineAndColumn() {
        assertThatThrownBy(() -> parser.parse("{\"name\": \"j\", \"operators\": [", tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class).hasMessageContaining("not valid JSON").hasMessageContaining("line");
    }

    @Test
    void unknownPluginTypeNamesTheFieldAndListsInstalledTypes() {
        assertThatThrownBy(() -> parser.parse(job(SOURCE + ", {\"id\": \"x\", \"type\": \"no-such\", \"inputs\": [\"src\"]}"), tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("operators[1].type 'no-such'")
                .hasMessageContaining("datagen");
    }

    @Test
    void cycleIsRejectedNamingItsOperators() {
        String ops = SOURCE + ", {\"id\": \"a\", \"type\": \"filter\", \"inputs\": [\"src\", \"b\"], \"config\": {\"field\": \"key\", \"op\": \">\", \"value\": 1}}"
                + ", {\"id\": \"b\", \"type\": \"filter\", \"inputs\": [\"a\"], \"config\": {\"field\": \"key\", \"op\": \">\", \"value\": 1}}"
                + ", {\"id\": \"out\", \"type\": \"discard\", \"inputs\": [\"b\"]}";
        assertThatThrownBy(() -> parser.parse(job(ops), tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class).hasMessageContaining("cycle").hasMessageContaining("a").hasMessageContaining("b");
    }

    @Test
    void badParallelismNamesTheField() {
        assertThatThrownBy(() -> parser.parse(job(SOURCE.replace("\"datagen\"", "\"datagen\", \"parallelism\": 0") + ", " + SINK), tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class).hasMessageContaining("operators[0].parallelism must be between 1 and 128");
        assertThatThrownBy(() -> parser.parse(job(SOURCE.replace("\"datagen\"", "\"datagen\", \"parallelism\": \"two\"") + ", " + SINK), tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class).hasMessageContaining("operators[0].parallelism must be a whole number");
    }

    @Test
    void missingInputFileNamesThePath() {
        String ops = "{\"id\": \"src\", \"type\": \"file\", \"config\": {\"path\": \"nope.json\", \"schema\": {\"a\": \"long\"}}}, "
                + "{\"id\": \"out\", \"type\": \"discard\", \"inputs\": [\"src\"]}";
        assertThatThrownBy(() -> parser.parse(job(ops), tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class).hasMessageContaining("operators[0].config.path").hasMessageContaining("nope.json");
    }

    @Test
    void unknownConfigKeyAndBadValueAreNamed() {
        assertThatThrownBy(() -> parser.parse(job(SOURCE + ", " + SINK), tmp, Map.of("execution.checkpointing.intervall", "1s")))
                .isInstanceOf(InvalidJobException.class).hasMessageContaining("config.execution.checkpointing.intervall is not a known option");
        assertThatThrownBy(() -> parser.parse(job(SOURCE + ", " + SINK), tmp, Map.of("execution.checkpointing.interval", "soon")))
                .isInstanceOf(InvalidJobException.class).hasMessageContaining("config.execution.checkpointing.interval").hasMessageContaining("duration");
    }

    @Test
    void hashKeyMissingFromUpstreamSchemaIsNamed() {
        String ops = SOURCE + ", {\"id\": \"agg\", \"type\": \"keyed-aggregate\", \"inputs\": [{\"from\": \"src\", \"partitioning\": \"hash\", \"keys\": [\"origin\"]}],"
                + " \"config\": {\"key\": [\"origin\"], \"aggregates\": [{\"fn\": \"count\", \"as\": \"n\"}]}}, {\"id\": \"out\", \"type\": \"discard\", \"inputs\": [\"agg\"]}";
        assertThatThrownBy(() -> parser.parse(job(ops), tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class).hasMessageContaining("operators[1].inputs[0].keys names field 'origin'");
    }

    @Test
    void forwardEdgeBetweenDifferentParallelismIsRejected() {
        String ops = SOURCE + ", {\"id\": \"out\", \"type\": \"discard\", \"parallelism\": 2, \"inputs\": [\"src\"]}";
        assertThatThrownBy(() -> parser.parse(job(ops), tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class).hasMessageContaining("forward edge").hasMessageContaining("rebalance");
    }
}
