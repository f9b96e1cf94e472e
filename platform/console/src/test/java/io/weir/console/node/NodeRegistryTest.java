package io.weir.console.node;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NodeRegistryTest {
    @Test
    void parsesNamedNodesInOrderWithATrailingSlash() {
        assertThat(NodeRegistry.parse(" a=http://127.0.0.1:8081 , b=https://h:9/x/"))
                .containsExactly(Map.entry("a", URI.create("http://127.0.0.1:8081/")), Map.entry("b", URI.create("https://h:9/x/")));
    }

    @Test
    void entryWithoutNameOrSchemeIsRefusedNamingIt() {
        assertThatThrownBy(() -> NodeRegistry.parse("a=http://x:1,127.0.0.1:8081"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("weir.console.nodes: '127.0.0.1:8081' is not name=http://host:port (name of letters, digits, '.', '_' or '-');"
                        + " e.g. local=http://127.0.0.1:8081");
    }

    @Test
    void duplicateOrMissingNodesAreRefused() {
        assertThatThrownBy(() -> NodeRegistry.parse("a=http://x:1,a=http://y:2")).hasMessage("weir.console.nodes: node name 'a' appears twice");
        assertThatThrownBy(() -> NodeRegistry.parse(" , ")).hasMessageContaining("names no node");
    }
}
