package io.weir.runtime;

import io.weir.core.job.InvalidJobException;
import io.weir.core.job.JobSpecParser;
import io.weir.core.plugin.MapPluginRegistry;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
    void shippedExampleJobsPassTheStricterChecks() throws Exception {
        Path examples = Path.of("../../examples").toAbsolutePath().normalize();
        for (String file : List.of("flight-delays.json", "flight-delays-slow.json", "seed-backpressure.json")) {
            assertThat(parser.parse(Files.readString(examples.resolve(file)), examples, Map.of()).name())
                    .isEqualTo(file.replace(".json", ""));
        }
    }

    @Test
    void invalidJsonNamesLineAndColumn() {
        assertThatThrownBy(() -> parser.parse("{\"name\": \"j\", \"operators\": [", tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class).hasMessageContaining("not valid JSON").hasMessageContaining("line");
    }

    @Test
    void invalidJsonIsExplainedWithoutParserJargon() {
        String trailingComma = "{\"name\": \"j\",\n \"operators\": [],\n}";
        assertThatThrownBy(() -> parser.parse(trailingComma, tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("job file is not valid JSON at line 3, column 1: found '}', expected a field name in double quotes"
                        + " (a trailing comma?)");
        assertThatThrownBy(() -> parser.parse("{\"name\": \"j\",\n \"operators\": [", tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageStartingWith("job file is not valid JSON at line 2, column 16: the file ends early")
                .hasMessageNotContaining("EOF").hasMessageNotContaining("SQUAREOPEN");
        assertThatThrownBy(() -> parser.parse("{\"name\": j}", tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("job file is not valid JSON at line 1, column 10: unexpected character 'j'"
                        + " (field names and strings need double quotes)");
        assertThatThrownBy(() -> parser.parse("{name: \"j\"}", tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("job file is not valid JSON at line 1, column 3: unexpected character 'a' in a word that is not"
                        + " true, false or null (field names and strings need double quotes)");
    }

    @Test
    void aFieldGivenTwiceIsAnErrorNotASilentChoice() {
        String twice = "{\"name\": \"j\",\n \"operators\": [{\"id\": \"a\", \"type\": \"datagen\", \"parallelism\": 1, \"parallelism\": 4}]}";
        assertThatThrownBy(() -> parser.parse(twice, tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageStartingWith("job file is not valid JSON at line 2")
                .hasMessageEndingWith("field 'parallelism' appears twice in the same object (give each field once)");
    }

    @Test
    void textAfterTheJobObjectIsAnError() throws Exception {
        String job = "{\"name\": \"j\", \"operators\": [{\"id\": \"a\", \"type\": \"datagen\"},"
                + " {\"id\": \"b\", \"type\": \"discard\", \"inputs\": [\"a\"]}]}";
        assertThatThrownBy(() -> parser.parse(job + "\n{\"name\": \"k\"}", tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("job file is not valid JSON at line 2, column 1: more text after the job object ends"
                        + " (one job per file; a stray '}' or a second object?)");
        assertThatThrownBy(() -> parser.parse(job + "}", tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("more text after the job object ends");
        assertThatThrownBy(() -> parser.parse(job + " x", tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageStartingWith("job file is not valid JSON at line 1");
        assertThat(parser.parse(job + " \n\n", tmp, Map.of()).name()).as("trailing white space is fine").isEqualTo("j");
        assertThat(parser.parse("\uFEFF" + job, tmp, Map.of()).name()).as("so is a byte order mark").isEqualTo("j");
    }

    @Test
    void failureInjectionMustNameAnOperatorOrSinkOfTheJob() {
        String job = "{\"name\": \"j\", \"operators\": [{\"id\": \"a\", \"type\": \"datagen\"},"
                + " {\"id\": \"b\", \"type\": \"discard\", \"inputs\": [\"a\"]}]}";
        assertThatThrownBy(() -> parser.parse(job, tmp, Map.of("debug.inject-failure.operator", "nosuch")))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("--set debug.inject-failure.operator=nosuch: debug.inject-failure.operator names 'nosuch',"
                        + " which is not an operator of this job; known: [a, b]");
        assertThatThrownBy(() -> parser.parse(job, tmp, Map.of("debug.inject-failure.operator", "a")))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("debug.inject-failure.operator names source 'a'");
    }

    @Test
    void parallelismOverridesReplaceTheJobFilesParallelismOfTheNamedOperators() throws Exception {
        String job = keyedJob("{\"from\": \"src\", \"partitioning\": \"hash\", \"keys\": [\"key\"]}", "[\"key\"]");
        Map<String, Integer> parallelism = new java.util.TreeMap<>();
        parser.parse(job, tmp, Map.of("pipeline.jobvertex-parallelism-overrides", " agg:4 , out:3"))
                .vertices().forEach(v -> parallelism.put(v.id(), v.parallelism()));
        assertThat(parallelism).isEqualTo(Map.of("src", 1, "agg", 4, "out", 3));
        Map<String, Integer> fromFile = new java.util.TreeMap<>();
        parser.parse(job, tmp, Map.of()).vertices().forEach(v -> fromFile.put(v.id(), v.parallelism()));
        assertThat(fromFile).isEqualTo(Map.of("src", 1, "agg", 2, "out", 1));
    }

    @Test
    void badParallelismOverridesAreOneLineNamingTheSetOption() {
        String job = keyedJob("{\"from\": \"src\", \"partitioning\": \"hash\", \"keys\": [\"key\"]}", "[\"key\"]");
        String key = "pipeline.jobvertex-parallelism-overrides";
        assertThatThrownBy(() -> parser.parse(job, tmp, Map.of(key, "agg=4")))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("--set " + key + "=agg=4: " + key + " must be operator-id:parallelism pairs separated by commas"
                        + " (e.g. per-origin:4,out:4); 'agg=4' is not one");
        assertThatThrownBy(() -> parser.parse(job, tmp, Map.of(key, "agg:4,nosuch:2")))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("--set " + key + "=agg:4,nosuch:2: " + key + " names 'nosuch', which is not an operator of this job;"
                        + " known: [src, agg, out]");
        assertThatThrownBy(() -> parser.parse(job, tmp, Map.of(key, "agg:0")))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageEndingWith(key + " sets the parallelism of 'agg' to 0; it must be between 1 and 128 (pipeline.max-parallelism)");
        assertThatThrownBy(() -> parser.parse(job, tmp, Map.of(key, "agg:4,agg:2")))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageEndingWith(key + " names 'agg' twice; give each operator once");
        assertThatThrownBy(() -> parser.parse(job(SOURCE + ", " + SINK), tmp, Map.of(key, "out:3")))
                .as("a forward edge left unequal is reported as in a job file")
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("is a forward edge from 'src' (parallelism 1) to 'out' (parallelism 3)");
    }

    /** datagen (fields key, seq, ts, payload) → keyed-aggregate with the given input and key → discard. */
    private static String keyedJob(String input, String key) {
        return job(SOURCE + ", {\"id\": \"agg\", \"type\": \"keyed-aggregate\", \"parallelism\": 2, \"inputs\": [" + input + "],"
                + " \"config\": {\"key\": " + key + ", \"aggregates\": [{\"fn\": \"count\"}]}},"
                + " {\"id\": \"out\", \"type\": \"discard\", \"inputs\": [{\"from\": \"agg\", \"partitioning\": \"rebalance\"}]}");
    }

    @Test
    void keyedOperatorWhoseKeyDiffersFromItsHashKeysIsRejectedNamingBoth() {
        String job = keyedJob("{\"from\": \"src\", \"partitioning\": \"hash\", \"keys\": [\"key\"]}", "[\"seq\"]");
        assertThatThrownBy(() -> parser.parse(job, tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("operators[1] ('agg', keyed-aggregate) groups by operators[1].config.key [seq], but its input"
                        + " operators[1].inputs[0].keys hash-partitions by [key]; state would be kept per [key] and rows labelled"
                        + " with [seq]: use the same fields in both");
        String superset = keyedJob("{\"from\": \"src\", \"partitioning\": \"hash\", \"keys\": [\"key\"]}", "[\"key\", \"seq\"]");
        assertThatThrownBy(() -> parser.parse(superset, tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("groups by operators[1].config.key [key, seq], but its input operators[1].inputs[0].keys"
                        + " hash-partitions by [key]");
    }

    @Test
    void keyedOperatorWithTheSameKeyFieldsInAnyOrderIsAccepted() throws Exception {
        assertThat(parser.parse(keyedJob("{\"from\": \"src\", \"partitioning\": \"hash\", \"keys\": [\"key\"]}", "\"key\""),
                tmp, Map.of()).vertices()).hasSize(3);
        assertThat(parser.parse(keyedJob("{\"from\": \"src\", \"partitioning\": \"hash\", \"keys\": [\"seq\", \"key\"]}",
                "[\"key\", \"seq\"]"), tmp, Map.of()).vertices()).hasSize(3);
    }

    @Test
    void keyedOperatorFedByAForwardOrRebalanceEdgeIsRejected() {
        assertThatThrownBy(() -> parser.parse(keyedJob("{\"from\": \"src\", \"partitioning\": \"rebalance\"}", "[\"key\"]"), tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("operators[1] ('agg', keyed-aggregate) keeps keyed state, but its input operators[1].inputs[0] from 'src'"
                        + " is \"partitioning\": \"rebalance\"; a keyed operator's inputs must be \"partitioning\": \"hash\" with"
                        + " \"keys\" naming its key fields");
        String forward = keyedJob("\"src\"", "[\"key\"]").replace("\"parallelism\": 2, \"inputs\"", "\"parallelism\": 1, \"inputs\"");
        assertThatThrownBy(() -> parser.parse(forward, tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("is \"partitioning\": \"forward\"");
    }

    @Test
    void engineOptionInAJobFileOrSetIsRejectedSayingWhereItGoes() {
        String text = "{\"name\": \"j\", \"config\": {\"state.async-snapshot.threads\": 4}, \"operators\": [" + SOURCE + ", " + SINK + "]}";
        assertThatThrownBy(() -> parser.parse(text, tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("config.state.async-snapshot.threads is an engine option (shared by every job the engine runs),"
                        + " not a job option: set it in the engine's configuration, conf/engine/io.weir.engine.cfg"
                        + " (ConfigurationAdmin PID io.weir.engine), and remove it from the job; see docs/configuration.md");
        assertThatThrownBy(() -> parser.parse(job(SOURCE + ", " + SINK), tmp, Map.of("state.async-snapshot.threads", "4")))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageStartingWith("--set state.async-snapshot.threads=4: state.async-snapshot.threads is an engine option");
    }

    @Test
    void failureInjectionWaitingForCheckpointsNeedsACheckpointInterval() throws Exception {
        String job = job(SOURCE + ", " + SINK);
        assertThatThrownBy(() -> parser.parse(job, tmp, Map.of("debug.inject-failure.operator", "out",
                "debug.inject-failure.after-checkpoints", "1")))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("--set debug.inject-failure.after-checkpoints=1: debug.inject-failure.after-checkpoints waits for 1"
                        + " completed checkpoints, but execution.checkpointing.interval is not set, so the only checkpoint is the"
                        + " final one, after the last record: set execution.checkpointing.interval"
                        + " (e.g. --set execution.checkpointing.interval=100ms) or set after-checkpoints to 0");
        assertThat(parser.parse(job, tmp, Map.of("debug.inject-failure.operator", "out", "debug.inject-failure.after-checkpoints", "1",
                "execution.checkpointing.interval", "100ms")).name()).isEqualTo("j");
    }

    @Test
    void emptyJobFileSaysWhatIsExpected() {
        assertThatThrownBy(() -> parser.parse(" \n", tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("job file is empty; expected a JSON object with name and operators");
    }

    @Test
    void unknownTopLevelFieldIsAnError() {
        String text = "{\"name\": \"j\", \"operator\": [" + SOURCE + ", " + SINK + "], \"operators\": [" + SOURCE + ", " + SINK + "]}";
        assertThatThrownBy(() -> parser.parse(text, tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("unknown top-level field 'operator'; a job has name, config and operators");
    }

    @Test
    void unknownOperatorAndInputFieldsAreNamedByPath() {
        assertThatThrownBy(() -> parser.parse(job(SOURCE.replace("\"datagen\"", "\"datagen\", \"paralellism\": 2") + ", " + SINK), tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("unknown field operators[0].paralellism; an operator has id, type, version, parallelism, inputs and config");
        String keyTypo = SOURCE + ", {\"id\": \"out\", \"type\": \"discard\", \"inputs\": [{\"from\": \"src\", \"partitioning\": \"hash\", \"key\": [\"key\"]}]}";
        assertThatThrownBy(() -> parser.parse(job(keyTypo), tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("unknown field operators[1].inputs[0].key; an input has from, output, partitioning and keys");
    }

    @Test
    void misspeltPluginSettingIsAnErrorListingThePluginsSettings() throws Exception {
        Files.writeString(tmp.resolve("in.json"), "[{\"a\": 1}]");
        String ops = "{\"id\": \"src\", \"type\": \"file\", \"config\": {\"path\": \"in.json\", \"schema\": {\"a\": \"long\"}, \"limt\": 5}}, "
                + "{\"id\": \"out\", \"type\": \"discard\", \"inputs\": [\"src\"]}";
        assertThatThrownBy(() -> parser.parse(job(ops), tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("operators[0].config.limt is not a setting of plugin type 'file'; its settings: [format, limit, path, release-file, schema, timestamp-field, timestamp-format, watermark.idle-timeout, watermark.max-out-of-orderness]");
    }

    @Test
    void misspeltRequiredSettingIsNotedNextToThePluginsError() {
        String ops = "{\"id\": \"src\", \"type\": \"file\", \"config\": {\"pth\": \"in.json\", \"schema\": {\"a\": \"long\"}}}, "
                + "{\"id\": \"out\", \"type\": \"discard\", \"inputs\": [\"src\"]}";
        assertThatThrownBy(() -> parser.parse(job(ops), tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageStartingWith("operators[0].config.path is required")
                .hasMessageContaining("operators[0].config also has pth, which plugin type 'file' had not read")
                .hasMessageContaining("[format, limit, path, release-file, schema]");
    }

    @Test
    void everyShippedPluginReadsAllItsSettingsWhileValidating() {
        String typo = "\"zz\": 1";
        String src = "{\"id\": \"src\", \"type\": \"datagen\", \"config\": {\"limit\": 10, " + typo + "}}";
        assertThatThrownBy(() -> parser.parse(job(src + ", " + SINK), tmp, Map.of()))
                .hasMessage("operators[0].config.zz is not a setting of plugin type 'datagen'; its settings: [keys, limit, rate, record-size, timestamp-field, timestamp-format, watermark.idle-timeout, watermark.max-out-of-orderness]");
        String filter = "{\"id\": \"f\", \"type\": \"filter\", \"inputs\": [\"src\"], \"config\": {\"field\": \"key\", \"op\": \">\", \"value\": 1, " + typo + "}}";
        assertThatThrownBy(() -> parser.parse(job(SOURCE + ", " + filter + ", " + SINK.replace("[\"src\"]", "[\"f\"]")), tmp, Map.of()))
                .hasMessage("operators[1].config.zz is not a setting of plugin type 'filter'; its settings: [field, op, sleep-ms-per-record, value]");
        String project = "{\"id\": \"p\", \"type\": \"project\", \"inputs\": [\"src\"], \"config\": {\"fields\": [\"key\"], " + typo + "}}";
        assertThatThrownBy(() -> parser.parse(job(SOURCE + ", " + project + ", " + SINK.replace("[\"src\"]", "[\"p\"]")), tmp, Map.of()))
                .hasMessage("operators[1].config.zz is not a setting of plugin type 'project'; its settings: [fields, sleep-ms-per-record]");
        String agg = "{\"id\": \"agg\", \"type\": \"keyed-aggregate\", \"inputs\": [{\"from\": \"src\", \"partitioning\": \"hash\", \"keys\": [\"key\"]}],"
                + " \"config\": {\"key\": [\"key\"], \"aggregates\": [{\"fn\": \"count\", \"as\": \"n\"}], " + typo + "}}";
        assertThatThrownBy(() -> parser.parse(job(SOURCE + ", " + agg + ", " + SINK.replace("[\"src\"]", "[\"agg\"]")), tmp, Map.of()))
                .hasMessage("operators[1].config.zz is not a setting of plugin type 'keyed-aggregate'; its settings: [aggregates, key, sleep-ms-per-record]");
        String sink = "{\"id\": \"out\", \"type\": \"file-2pc\", \"inputs\": [\"src\"], \"config\": {\"path\": \"out\", " + typo + "}}";
        assertThatThrownBy(() -> parser.parse(job(SOURCE + ", " + sink), tmp, Map.of()))
                .hasMessage("operators[1].config.zz is not a setting of plugin type 'file-2pc'; its settings: [path, prefix]");
        assertThat(tmp.resolve("out")).doesNotExist();
    }

    @Test
    void optionOutOfRangeIsRejectedByTheParserBeforeACheckpointDirectoryExists() {
        String text = "{\"name\": \"j\", \"config\": {\"execution.checkpointing.interval\": 0}, \"operators\": [" + SOURCE + ", " + SINK + "]}";
        assertThatThrownBy(() -> parser.parse(text, tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("config.execution.checkpointing.interval must be > 0 ms, got 0");
        assertThat(tmp.resolve("checkpoints")).doesNotExist();
        Map<String, String> expected = Map.of(
                "taskmanager.memory.segment-size", "must be >= 64 bytes, got 10",
                "taskmanager.network.memory.buffers-per-channel", "must be >= 1, got 0",
                "taskmanager.network.memory.buffer-debloat.target", "must be >= 1 ms, got 0",
                "execution.checkpointing.num-retained", "must be >= 1, got 0",
                "restart-strategy.fixed-delay.attempts", "must be >= 0, got -1",
                "state.backend.rocksdb.thread.num", "must be >= 1, got 0",
                "state.backend.rocksdb.block.cache-size", "must be > 0 bytes, got 0");
        expected.forEach((key, problem) -> {
            String value = problem.substring(problem.lastIndexOf(' ') + 1);
            String bad = "{\"name\": \"j\", \"config\": {\"" + key + "\": " + value + "}, \"operators\": [" + SOURCE + ", " + SINK + "]}";
            assertThatThrownBy(() -> parser.parse(bad, tmp, Map.of())).hasMessage("config." + key + " " + problem);
        });
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
                .isInstanceOf(InvalidJobException.class).hasMessageStartingWith("operators form a cycle through [a, b];");
    }

    @Test
    void cycleMessageLeavesOutOperatorsOnlyDownstreamOfTheCycle() {
        String filter = "\"type\": \"filter\", \"config\": {\"field\": \"key\", \"op\": \">\", \"value\": 1}";
        String ops = SOURCE + ", {\"id\": \"c\", " + filter + ", \"inputs\": [\"b\"]}"
                + ", {\"id\": \"a\", " + filter + ", \"inputs\": [\"src\", \"b\"]}"
                + ", {\"id\": \"b\", " + filter + ", \"inputs\": [\"a\"]}"
                + ", {\"id\": \"d\", " + filter + ", \"inputs\": [\"c\"]}"
                + ", {\"id\": \"out\", \"type\": \"discard\", \"inputs\": [\"d\"]}";
        assertThatThrownBy(() -> parser.parse(job(ops), tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("operators form a cycle through [a, b]; a job must be a directed acyclic graph: check their inputs");
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
    void unknownConfigKeyAndBadValueInTheJobFileAreNamed() {
        String unknown = "{\"name\": \"j\", \"config\": {\"execution.checkpointing.intervall\": \"1s\"}, \"operators\": [" + SOURCE + ", " + SINK + "]}";
        assertThatThrownBy(() -> parser.parse(unknown, tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("config.execution.checkpointing.intervall is not a known option; see docs/configuration.md");
        String bad = "{\"name\": \"j\", \"config\": {\"execution.checkpointing.interval\": \"soon\"}, \"operators\": [" + SOURCE + ", " + SINK + "]}";
        assertThatThrownBy(() -> parser.parse(bad, tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageStartingWith("config.execution.checkpointing.interval: ").hasMessageContaining("duration");
    }

    @Test
    void setOverrideErrorsNameTheSetArgumentNotTheJobFile() {
        assertThatThrownBy(() -> parser.parse(job(SOURCE + ", " + SINK), tmp, Map.of("foo.bar", "1")))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("--set foo.bar=1: foo.bar is not a known option; see docs/configuration.md");
        assertThatThrownBy(() -> parser.parse(job(SOURCE + ", " + SINK), tmp, Map.of("execution.checkpointing.interval", "soon")))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageStartingWith("--set execution.checkpointing.interval=soon: ").hasMessageContaining("duration");
        assertThatThrownBy(() -> parser.parse(job(SOURCE + ", " + SINK), tmp, Map.of("execution.checkpointing.timeout", "0 ms")))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("--set execution.checkpointing.timeout=0 ms: execution.checkpointing.timeout must be > 0 ms, got 0");
    }

    @Test
    void jobNameThatIsNotAPlainFileNameIsRejected() {
        for (String name : List.of("../../escape", "a/b", "a\\\\b", ".hidden", "..", "tab\\there")) {
            String text = "{\"name\": \"" + name + "\", \"operators\": [" + SOURCE + ", " + SINK + "]}";
            assertThatThrownBy(() -> parser.parse(text, tmp, Map.of()))
                    .isInstanceOf(InvalidJobException.class)
                    .hasMessageEndingWith("' must be a plain name (letters, digits, '-', '_', '.'), it names the checkpoint directory");
        }
        assertThatThrownBy(() -> parser.parse("{\"name\": \"../../escape\", \"operators\": [" + SOURCE + ", " + SINK + "]}", tmp, Map.of()))
                .hasMessage("name '../../escape' must be a plain name (letters, digits, '-', '_', '.'), it names the checkpoint directory");
    }

    @Test
    void fileSinkDirectoryThatCannotBeCreatedIsNamed() throws Exception {
        Path afile = Files.writeString(tmp.resolve("afile"), "");
        String filter = "{\"id\": \"f\", \"type\": \"filter\", \"inputs\": [\"src\"], \"config\": {\"field\": \"key\", \"op\": \">\", \"value\": 1}}";
        String underFile = SOURCE + ", " + filter + ", {\"id\": \"out\", \"type\": \"file-2pc\", \"inputs\": [\"f\"], \"config\": {\"path\": \"afile/out\"}}";
        assertThatThrownBy(() -> parser.parse(job(underFile), tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("operators[2].config.path " + afile.resolve("out") + " cannot be created: " + afile + " is a file, not a directory");
        assumeTrue(Files.isDirectory(Path.of("/proc/self")), "needs Linux /proc");
        String underProc = underFile.replace("afile/out", "/proc/weir-out");
        assertThatThrownBy(() -> parser.parse(job(underProc), tmp, Map.of()))
                .isInstanceOf(InvalidJobException.class)
                .hasMessage("operators[2].config.path /proc/weir-out cannot be created: /proc is not writable");
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
