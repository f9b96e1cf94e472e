package io.weir.console.script;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bin/console configure} on a server directory under {@code target/}: the configuration it writes for
 * {@code bin/console start} keeps the {@code keystore_password} that Liberty's {@code server create} put into
 * {@code server.env}. (Overwriting it left MicroProfile JWT inactive: every action answered 401 with a valid token.)
 */
class ConsoleScriptTest {
    private static final Path SCRIPT = Path.of("bin/console").toAbsolutePath();
    private final Path server = Path.of("target/console-script-test/server").toAbsolutePath();

    @BeforeEach
    void cleanServerDir() throws IOException {
        if (Files.exists(server)) {
            try (Stream<Path> paths = Files.walk(server)) {
                for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(server.resolve("resources/security"));
    }

    @Test
    void keepsTheKeystorePasswordThatServerCreateWrote() throws Exception {
        Files.writeString(server.resolve("server.env"), "keystore_password=kept123\nWEIR_CONSOLE_NODES=old=http://127.0.0.1:1\n");
        Files.writeString(server.resolve("resources/security/key.p12"), "made by Liberty");

        configure();

        assertThat(Files.readAllLines(server.resolve("server.env"))).containsExactly(
                "keystore_password=kept123",
                "WEIR_CONSOLE_NODES=a=http://127.0.0.1:8181",
                "WEIR_CONSOLE_NODE_A_TOKEN_FILE=/tmp/admin.token",
                "WEIR_CONSOLE_USERS=olga:pw:operator");
        assertThat(server.resolve("resources/security/key.p12")).exists();
        assertThat(Files.readString(server.resolve("bootstrap.properties"))).isEqualTo("http.port=9181\n");
    }

    @Test
    void serverEnvThatLostTheKeystorePasswordGetsANewOneAndANewKeystore() throws Exception {
        Files.writeString(server.resolve("server.env"), "WEIR_CONSOLE_NODES=old=http://127.0.0.1:1\n");
        Files.writeString(server.resolve("resources/security/key.p12"), "password unknown");

        configure();

        List<String> env = Files.readAllLines(server.resolve("server.env"));
        assertThat(env.get(0)).matches("keystore_password=[A-Za-z0-9]{16,}");
        assertThat(env).contains("WEIR_CONSOLE_USERS=olga:pw:operator");
        assertThat(server.resolve("resources/security/key.p12")).as("Liberty makes a new one with the new password").doesNotExist();
    }

    @Test
    void everyConfiguredNodeGetsItsOwnTokenFile() throws Exception {
        Files.writeString(server.resolve("server.env"), "keystore_password=kept123\n");

        configure(Map.of("WEIR_CONSOLE_NODES", "local=http://127.0.0.1:8081,n-2=http://127.0.0.1:8082,n3=http://127.0.0.1:8083",
                "WEIR_CONSOLE_TOKEN_FILES", "n-2=/tmp/n2/admin.token,local=/tmp/n1/admin.token"));

        assertThat(Files.readAllLines(server.resolve("server.env"))).containsExactly(
                "keystore_password=kept123",
                "WEIR_CONSOLE_NODES=local=http://127.0.0.1:8081,n-2=http://127.0.0.1:8082,n3=http://127.0.0.1:8083",
                "WEIR_CONSOLE_NODE_LOCAL_TOKEN_FILE=/tmp/n1/admin.token",
                "WEIR_CONSOLE_NODE_N_2_TOKEN_FILE=/tmp/n2/admin.token",
                "WEIR_CONSOLE_USERS=olga:pw:operator");
    }

    private void configure() throws IOException, InterruptedException {
        configure(Map.of());
    }

    private void configure(Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("bash", SCRIPT.toString(), "configure").redirectErrorStream(true);
        pb.environment().put("WEIR_CONSOLE_SERVER_DIR", server.toString());
        pb.environment().put("WEIR_CONSOLE_PORT", "9181");
        pb.environment().put("WEIR_CONSOLE_NODES", "a=http://127.0.0.1:8181");
        pb.environment().put("WEIR_NODE_TOKEN_FILE", "/tmp/admin.token");
        pb.environment().put("WEIR_CONSOLE_USERS", "olga:pw:operator");
        pb.environment().putAll(env);
        Process p = pb.start();
        try {
            boolean ended = p.waitFor(60, TimeUnit.SECONDS);
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(ended).as("bin/console configure ended").isTrue();
            assertThat(p.exitValue()).as("bin/console configure: %s", out).isZero();
        } finally {
            p.destroyForcibly();
        }
    }
}
