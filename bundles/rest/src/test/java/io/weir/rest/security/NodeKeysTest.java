package io.weir.rest.security;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NodeKeysTest {
    private static final long NOW = System.currentTimeMillis();

    @TempDir
    Path data;

    @Test
    void firstStartCreatesKeyAndTokenReadableByTheOwnerOnly() throws Exception {
        NodeKeys keys = NodeKeys.loadOrCreate(data, NOW);

        Path dir = data.resolve("security");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("node-key.jwk")))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("admin.token")))).isEqualTo("rw-------");
        assertThat(keys.tokenFile()).isEqualTo(dir.resolve("admin.token"));
        String token = Files.readString(keys.tokenFile()).strip();
        assertThat(keys.verifier().verify(token)).isEqualTo("admin");
    }

    @Test
    void aRestartKeepsKeyAndToken() throws Exception {
        NodeKeys.loadOrCreate(data, NOW);
        String key = Files.readString(data.resolve("security/node-key.jwk"));
        String token = Files.readString(data.resolve("security/admin.token"));

        NodeKeys again = NodeKeys.loadOrCreate(data, NOW + 1000);

        assertThat(Files.readString(data.resolve("security/node-key.jwk"))).isEqualTo(key);
        assertThat(Files.readString(data.resolve("security/admin.token"))).isEqualTo(token);
        assertThat(again.verifier().verify(token.strip())).isEqualTo("admin");
    }

    @Test
    void anExpiredAdminTokenIsReplacedOnStart() throws Exception {
        long longAgo = NOW - Duration.ofDays(NodeKeys.TOKEN_VALIDITY_DAYS + 1).toMillis();
        NodeKeys.loadOrCreate(data, longAgo);
        String old = Files.readString(data.resolve("security/admin.token")).strip();

        NodeKeys keys = NodeKeys.loadOrCreate(data, NOW);

        String fresh = Files.readString(data.resolve("security/admin.token")).strip();
        assertThat(fresh).isNotEqualTo(old);
        assertThat(keys.verifier().verify(fresh)).isEqualTo("admin");
        assertThatThrownBy(() -> keys.verifier().verify(old)).isInstanceOf(TokenRejectedException.class).hasMessageContaining("Expired");
    }

    @Test
    void aDamagedKeyFileIsNamed() throws Exception {
        Files.createDirectories(data.resolve("security"));
        Files.writeString(data.resolve("security/node-key.jwk"), "not a key");

        assertThatThrownBy(() -> NodeKeys.loadOrCreate(data, NOW)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("node-key.jwk").hasMessageContaining("delete it");
    }
}
