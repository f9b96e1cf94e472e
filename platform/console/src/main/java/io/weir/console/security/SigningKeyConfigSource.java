package io.weir.console.security;

import io.weir.console.ConsoleOptions;
import org.eclipse.microprofile.config.spi.ConfigSource;

import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Map;
import java.util.Set;

/**
 * The console's login-token key: an RSA-2048 pair made when the application starts, kept in memory only, so tokens end
 * with the console (log in again after a restart). Publishes the public half to MicroProfile JWT as
 * {@code mp.jwt.verify.publickey} (PEM) with {@code mp.jwt.verify.issuer} = {@value ConsoleOptions#ISSUER}; ordinal 50,
 * so a configured key of the operator's wins. {@link TokenIssuer} signs with the private half. Immutable.
 */
public final class SigningKeyConfigSource implements ConfigSource {
    private final KeyPair keys;
    private final Map<String, String> properties;

    /** Makes the key pair (ServiceLoader needs this constructor). */
    public SigningKeyConfigSource() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(2048);
            keys = g.generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no RSA key generator", e);
        }
        String pem = "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).encodeToString(keys.getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----";
        properties = Map.of("mp.jwt.verify.publickey", pem, "mp.jwt.verify.issuer", ConsoleOptions.ISSUER);
    }

    /** @return the pair whose public half verifies the console's tokens */
    KeyPair keys() {
        return keys;
    }

    @Override
    public Set<String> getPropertyNames() {
        return properties.keySet();
    }

    @Override
    public String getValue(String propertyName) {
        return properties.get(propertyName);
    }

    @Override
    public String getName() {
        return "weir-console-signing-key";
    }

    @Override
    public int getOrdinal() {
        return 50;
    }
}
