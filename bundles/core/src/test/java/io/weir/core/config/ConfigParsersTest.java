package io.weir.core.config;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Option values as users write them: durations with units, whole numbers, and values out of range. */
class ConfigParsersTest {

    @Test
    void durationsConvertTheirUnitToMilliseconds() {
        assertThat(ConfigParsers.parseDurationMs("500")).isEqualTo(500);
        assertThat(ConfigParsers.parseDurationMs("500 ms")).isEqualTo(500);
        assertThat(ConfigParsers.parseDurationMs("5 s")).isEqualTo(5_000);
        assertThat(ConfigParsers.parseDurationMs("10 min")).isEqualTo(600_000);
        assertThat(ConfigParsers.parseDurationMs("2 millis")).isEqualTo(2);
        assertThat(ConfigParsers.parseDurationMs("1 h")).isEqualTo(3_600_000);
        assertThat(ConfigParsers.parseDurationMs(250)).isEqualTo(250);
    }

    @Test
    void durationsTooLongForALongAreRejectedNotWrappedToNegative() {
        assertThatThrownBy(() -> ConfigParsers.parseDurationMs("9999999999999999 min"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("duration '9999999999999999 min' is too long: at most 9223372036854775807 ms");
        assertThatThrownBy(() -> ConfigParsers.parseDurationMs("99999999999999999999"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is too long");
    }

    @Test
    void numbersOutsideTheLongRangeAreRejected() {
        assertThatThrownBy(() -> ConfigParsers.parseLong(1e30)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected a whole number between");
        assertThatThrownBy(() -> ConfigParsers.parseLong("99999999999999999999")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("expected a whole number, got '99999999999999999999'");
        assertThat(ConfigParsers.parseLong(42.0)).isEqualTo(42);
    }
}
