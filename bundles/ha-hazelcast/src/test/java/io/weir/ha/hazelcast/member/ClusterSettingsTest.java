package io.weir.ha.hazelcast.member;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClusterSettingsTest {

    @Test
    void defaultsAreTunedFailureDetectionOnLoopback() {
        ClusterSettings s = ClusterSettings.fromProperties(Map.of(ClusterSettings.MEMBERS, "127.0.0.1:5701, 127.0.0.1:5702,127.0.0.1:5703",
                ClusterSettings.PORT, "5702")::get);
        assertThat(s.members()).containsExactly("127.0.0.1:5701", "127.0.0.1:5702", "127.0.0.1:5703");
        assertThat(s.host()).isEqualTo("127.0.0.1");
        assertThat(s.heartbeatSeconds()).isEqualTo(1);
        assertThat(s.maxNoHeartbeatSeconds()).isEqualTo(3);
        assertThat(s.quorum()).isEqualTo(2);
    }

    @Test
    void aPortRangeIsRefusedNamingTheMember() {
        assertThatThrownBy(() -> ClusterSettings.fromProperties(Map.of(ClusterSettings.MEMBERS, "127.0.0.1:5701-5703",
                ClusterSettings.PORT, "5701")::get)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'127.0.0.1:5701-5703'").hasMessageContaining("list each member");
    }

    @Test
    void missingMembersSayHowToStartTheNode() {
        assertThatThrownBy(() -> ClusterSettings.fromProperties(Map.<String, String>of()::get))
                .hasMessageContaining("--cluster");
    }

    @Test
    void maxNoHeartbeatMustExceedTheHeartbeat() {
        assertThatThrownBy(() -> ClusterSettings.fromProperties(Map.of(ClusterSettings.MEMBERS, "127.0.0.1:5701",
                ClusterSettings.PORT, "5701", ClusterSettings.HEARTBEAT, "3", ClusterSettings.MAX_NO_HEARTBEAT, "3")::get))
                .hasMessageContaining(ClusterSettings.MAX_NO_HEARTBEAT);
    }
}
