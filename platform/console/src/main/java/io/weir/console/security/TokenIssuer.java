package io.weir.console.security;

import io.weir.console.ConsoleOptions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import org.eclipse.microprofile.config.ConfigProvider;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.util.Base64;
import java.util.Set;
import java.util.UUID;

/**
 * Signs the console's login tokens: RS256 JWTs with {@code iss} {@value ConsoleOptions#ISSUER}, {@code sub}/{@code upn}
 * the user, {@code groups} the user's roles (MicroProfile JWT maps them to {@code @RolesAllowed} roles), {@code iat},
 * {@code exp} and a random {@code jti}. The key is {@link SigningKeyConfigSource}'s, found among the application's
 * config sources. Thread-safe.
 */
@ApplicationScoped
public class TokenIssuer {
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

    /**
     * @param user the user name
     * @param roles the user's roles
     * @param lifetimeS validity in seconds, &gt; 0
     * @param nowS the issue time, seconds since the epoch
     * @return the compact JWT
     */
    public String issue(String user, Set<String> roles, long lifetimeS, long nowS) {
        JsonArrayBuilder groups = Json.createArrayBuilder();
        roles.stream().sorted().forEach(groups::add);
        String header = Json.createObjectBuilder().add("alg", "RS256").add("typ", "JWT").add("kid", "weir-console").build().toString();
        String claims = Json.createObjectBuilder().add("iss", ConsoleOptions.ISSUER).add("sub", user).add("upn", user)
                .add("groups", groups).add("iat", nowS).add("exp", nowS + lifetimeS).add("jti", UUID.randomUUID().toString())
                .build().toString();
        String signingInput = B64.encodeToString(header.getBytes(StandardCharsets.UTF_8)) + "."
                + B64.encodeToString(claims.getBytes(StandardCharsets.UTF_8));
        try {
            Signature rsa = Signature.getInstance("SHA256withRSA");
            rsa.initSign(privateKey());
            rsa.update(signingInput.getBytes(StandardCharsets.US_ASCII));
            return signingInput + "." + B64.encodeToString(rsa.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign a login token for '" + user + "'", e);
        }
    }

    private static PrivateKey privateKey() {
        for (var source : ConfigProvider.getConfig().getConfigSources()) {
            if (source instanceof SigningKeyConfigSource keys) {
                return keys.keys().getPrivate();
            }
        }
        throw new IllegalStateException("the console's signing key source is not registered (META-INF/services/"
                + "org.eclipse.microprofile.config.spi.ConfigSource is missing from the WAR)");
    }
}
