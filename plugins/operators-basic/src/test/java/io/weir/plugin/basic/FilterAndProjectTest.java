package io.weir.plugin.basic;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.operator.StreamOperator;
import io.weir.api.plugin.PluginConfig;
import io.weir.plugin.basic.filter.FilterOperatorFactory;
import io.weir.plugin.basic.project.ProjectOperatorFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FilterAndProjectTest {
    private static final Schema INPUT = Schema.builder().field("origin", FieldType.STRING)
            .field("delay", FieldType.LONG).field("ratio", FieldType.DOUBLE).field("late", FieldType.BOOLEAN).build();
    private static final List<Row> ROWS = List.of(
            new Row(INPUT, "DTW", -5L, 0.5, false),
            new Row(INPUT, "LAS", 0L, 1.5, false),
            new Row(INPUT, "SFO", 30L, 2.0, true),
            new Row(INPUT, null, null, null, null));

    @ParameterizedTest
    @CsvSource({"==, 0, LAS", "!=, 0, DTW SFO", "<, 0, DTW", "<=, 0, DTW LAS", ">, 0, SFO", ">=, -5, DTW LAS SFO"})
    void filterComparesLongFieldWithNumberAndDropsNulls(String op, long value, String expectedOrigins) throws Exception {
        StreamOperator filter = filter(Map.of("field", "delay", "op", op, "value", value));

        assertThat(run(filter, ROWS).stream().map(r -> r.getString(0)).toList())
                .containsExactly(expectedOrigins.split(" "));
    }

    @Test
    void filterComparesDoubleFieldWithWholeNumberAndStringAndBooleanFields() throws Exception {
        assertThat(run(filter(Map.of("field", "ratio", "op", ">", "value", 1L)), ROWS)).containsExactly(ROWS.get(1), ROWS.get(2));
        assertThat(run(filter(Map.of("field", "origin", "op", "<", "value", "LAZ")), ROWS)).containsExactly(ROWS.get(0), ROWS.get(1));
        assertThat(run(filter(Map.of("field", "late", "op", "==", "value", true)), ROWS)).containsExactly(ROWS.get(2));
    }

    @Test
    void filterOutputSchemaIsTheInputSchema() {
        assertThat(new FilterOperatorFactory().outputSchema(config(Map.of("field", "delay", "op", ">", "value", 1L)), INPUT))
                .isEqualTo(INPUT);
    }

    @Test
    void filterValueOfTheWrongTypeIsAConfigErrorNamingValue() {
        assertThatThrownBy(() -> new FilterOperatorFactory().outputSchema(
                config(Map.of("field", "delay", "op", ">", "value", "ten")), INPUT))
                .hasMessage("operators[1].config.value must be a number to compare with long field, got ten");
        assertThatThrownBy(() -> new FilterOperatorFactory().outputSchema(
                config(Map.of("field", "delay", "op", "=>", "value", 1L)), INPUT))
                .hasMessageStartingWith("operators[1].config.op must be one of");
    }

    @Test
    void projectKeepsTheListedFieldsInTheListedOrder() throws Exception {
        PluginConfig config = config(Map.of("fields", List.of("ratio", "origin")));
        Schema expected = Schema.builder().field("ratio", FieldType.DOUBLE).field("origin", FieldType.STRING).build();

        assertThat(new ProjectOperatorFactory().outputSchema(config, INPUT)).isEqualTo(expected);
        assertThat(run(new ProjectOperatorFactory().create(config, INPUT), ROWS.subList(0, 2)))
                .containsExactly(new Row(expected, 0.5, "DTW"), new Row(expected, 1.5, "LAS"));
    }

    @Test
    void projectOfAnUnknownFieldIsAConfigErrorNamingItsIndex() {
        assertThatThrownBy(() -> new ProjectOperatorFactory().outputSchema(
                config(Map.of("fields", List.of("origin", "carrier"))), INPUT))
                .hasMessageStartingWith("operators[1].config.fields[1] names no input field: 'carrier'");
    }

    @Test
    void sleepPerRecordSlowsProcessingDown() throws Exception {
        StreamOperator project = new ProjectOperatorFactory().create(
                config(Map.of("fields", List.of("origin"), "sleep-ms-per-record", 20L)), INPUT);
        long start = System.nanoTime();

        run(project, ROWS.subList(0, 3));

        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(60);
    }

    private static StreamOperator filter(Map<String, Object> values) {
        return new FilterOperatorFactory().create(config(values), INPUT);
    }

    private static List<Row> run(StreamOperator op, List<Row> input) throws Exception {
        List<Row> out = new ArrayList<>();
        for (Row row : input) {
            op.processElement(row, out::add);
        }
        return out;
    }

    private static PluginConfig config(Map<String, Object> values) {
        return new PluginConfig("operators[1].config", values, Path.of("."));
    }
}
