package io.weir.rest.security;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.text.ParseException;
import java.time.Duration;
import java.util.Date;
import java.util.Set;
import java.util.UUID;

/**
 * The node's signing key and admin token, under {@code <data-dir>/security/}: created on first
 * start, read on later starts. The directory is {@code rwx------} and both files {@code rw-------}
 * (owner only), written atomically (a temporary file with those permissions, then moved).
 * <ul>
 * <li>{@value #KEY_FILE}: the RSA-2048 key pair as a private JWK (JSON)</li>
 * <li>{@value #TOKEN_FILE}: an RS256 JWT, subject {@code admin}, valid {@value #TOKEN_VALIDITY_DAYS}
 *     days; a new one is written when the old one no longer verifies (expired, or the key changed)</li>
 * </ul>
 * Immutable once loaded; thread-safe.
 */
public final class NodeKeys {
    private static final Logger LOG = LoggerFactory.getLogger(NodeKeys.class);
    /** {@code iss} of the node's tokens. */
    public static final String ISSUER = "weir-node";
    /** {@code aud} of the node's tokens. */
    public static final String AUDIENCE = "weir";
    /** Sub-directory of the data directory. */
    public static final String DIRECTORY = "security";
    /** The key file's name. */
    public static final String KEY_FILE = "node-key.jwk";
    /** The admin token file's name. */
    public static final String TOKEN_FILE = "admin.token";
    /** Validity of a new admin token, days. */
    public static final int TOKEN_VALIDITY_DAYS = 365;

    private static final Set<PosixFilePermission> OWNER_RW = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OWNER_RWX = PosixFilePermissions.fromString("rwx------");

    private final RSAKey key;
    private final Path tokenFile;
    private final TokenVerifier verifier;

    private NodeKeys(RSAKey key, Path tokenFile) {
        this.key = key;
        this.tokenFile = tokenFile;
        this.verifier = new TokenVerifier(key);
    }

    /**
     * Reads the key and token under {@code dataDir/security}, creating what is missing.
     *
     * @param dataDir the node's data directory (created if missing)
     * @param now the current time, ms since the epoch (for a new token's {@code iat} and {@code exp})
     * @return the keys
     * @throws UncheckedIOException naming the file if it cannot be read or written
     * @throws IllegalStateException naming the file if the key file is not an RSA private JWK
     */
    public static NodeKeys loadOrCreate(Path dataDir, long now) {
        Path dir = dataDir.resolve(DIRECTORY);
        Path keyFile = dir.resolve(KEY_FILE);
        Path tokenFile = dir.resolve(TOKEN_FILE);
        try {
            Files.createDirectories(dir);
            Files.setPosixFilePermissions(dir, OWNER_RWX);
            RSAKey key;
            if (Files.exists(keyFile)) {
                key = readKey(keyFile);
            } else {
                key = new RSAKeyGenerator(2048).keyID(UUID.randomUUID().toString()).generate();
                writeOwnerOnly(keyFile, key.toJSONString());
                LOG.info("Created the node's signing key {}", keyFile);
            }
            NodeKeys keys = new NodeKeys(key, tokenFile);
            if (!keys.tokenFileVerifies()) {
                writeOwnerOnly(tokenFile, keys.issueToken("admin", now, Duration.ofDays(TOKEN_VALIDITY_DAYS)) + "\n");
                LOG.info("Wrote a new admin token to {}", tokenFile);
            }
            return keys;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot set up the node's key and token under " + dir + ": " + e.getMessage(), e);
        } catch (JOSEException e) {
            throw new IllegalStateException("cannot create the node's signing key " + keyFile + ": " + e.getMessage(), e);
        }
    }

    private static RSAKey readKey(Path keyFile) throws IOException {
        try {
            RSAKey key = RSAKey.parse(Files.readString(keyFile, StandardCharsets.UTF_8));
            if (!key.isPrivate()) {
                throw new IllegalStateException("key file " + keyFile + " holds no private key; delete it to create a new one"
                        + " (tokens signed with the old key stop working)");
            }
            return key;
        } catch (ParseException e) {
            throw new IllegalStateException("key file " + keyFile + " is not an RSA JWK (" + e.getMessage()
                    + "); delete it to create a new one (tokens signed with the old key stop working)", e);
        }
    }

    private boolean tokenFileVerifies() throws IOException {
        if (!Files.exists(tokenFile)) {
            return false;
        }
        try {
            verifier.verify(Files.readString(tokenFile, StandardCharsets.UTF_8).strip());
            return true;
        } catch (TokenRejectedException e) {
            LOG.info("The admin token in {} is no longer valid ({}); writing a new one", tokenFile, e.getMessage());
            return false;
        }
    }

    private static void writeOwnerOnly(Path file, String content) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        Files.createFile(tmp, PosixFilePermissions.asFileAttribute(OWNER_RW));
        Files.writeString(tmp, content, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Signs a token with the node's key.
     *
     * @param subject the {@code sub} claim
     * @param now issue time, ms since the epoch
     * @param validity how long it is valid
     * @return the compact JWT
     * @throws JOSEException if signing fails
     */
    public String issueToken(String subject, long now, Duration validity) throws JOSEException {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().issuer(ISSUER).audience(AUDIENCE).subject(subject)
                .issueTime(new Date(now)).expirationTime(new Date(now + validity.toMillis()))
                .jwtID(UUID.randomUUID().toString()).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).type(JOSEObjectType.JWT)
                .keyID(key.getKeyID()).build(), claims);
        jwt.sign(new RSASSASigner(key));
        return jwt.serialize();
    }

    /** @return the verifier of this node's tokens */
    public TokenVerifier verifier() {
        return verifier;
    }

    /** @return where the admin token is */
    public Path tokenFile() {
        return tokenFile;
    }
}
