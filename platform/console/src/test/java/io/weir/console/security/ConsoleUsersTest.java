package io.weir.console.security;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConsoleUsersTest {
    private static ConsoleUsers users(String spec) {
        ConsoleUsers u = new ConsoleUsers();
        return u.withUsers(ConsoleUsers.parse(spec));
    }

    @Test
    void rightPasswordGivesTheRolesAndAWrongOneNothing() {
        ConsoleUsers u = users("olga:pa:ss:operator|viewer, vic:v:viewer");

        assertThat(u.authenticate("olga", "pa:ss")).isEqualTo(Optional.of(Set.of("operator", "viewer")));
        assertThat(u.authenticate("vic", "v")).isEqualTo(Optional.of(Set.of("viewer")));
        assertThat(u.authenticate("olga", "pa")).isEmpty();
        assertThat(u.authenticate("nobody", "v")).isEmpty();
        assertThat(u.authenticate(null, null)).isEmpty();
    }

    @Test
    void malformedEntryIsRefusedByPositionWithoutThePassword() {
        assertThatThrownBy(() -> ConsoleUsers.parse("olga:secret:operator,vic:hunter2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("weir.console.users: entry 2 is not name:password:role[|role]; e.g. alice:s3cret:operator")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void noUsersMeansNoLogin() {
        assertThat(ConsoleUsers.parse("")).isEqualTo(Map.of());
        assertThat(users("").any()).isFalse();
    }
}
