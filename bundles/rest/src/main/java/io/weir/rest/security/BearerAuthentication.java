package io.weir.rest.security;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;

/**
 * Decides whether a request may pass: reading methods ({@code GET}, {@code HEAD}, {@code OPTIONS})
 * always, every other (mutating) method only with {@code Authorization: Bearer <JWT>} that this
 * node's {@link TokenVerifier} accepts. Reasons never contain the token.
 *
 * <p>Thread-safe: immutable.
 */
public final class BearerAuthentication {
    private static final Set<String> READING = Set.of("GET", "HEAD", "OPTIONS");
    private static final String PREFIX = "bearer ";

    private final TokenVerifier verifier;
    private final Path tokenFile;

    /**
     * @param verifier verifies the node's tokens
     * @param tokenFile where the admin token is, named in refusals
     */
    public BearerAuthentication(TokenVerifier verifier, Path tokenFile) {
        this.verifier = verifier;
        this.tokenFile = tokenFile;
    }

    /**
     * @param method the HTTP method
     * @param authorization the {@code Authorization} header, or null
     * @throws TokenRejectedException with the reason, if a mutating request has no valid bearer token
     */
    public void check(String method, String authorization) throws TokenRejectedException {
        if (READING.contains(method.toUpperCase(Locale.ROOT))) {
            return;
        }
        if (authorization == null || authorization.isBlank()) {
            throw new TokenRejectedException(method + " needs an 'Authorization: Bearer <token>' header; the node's admin token is in "
                    + tokenFile, null);
        }
        if (!authorization.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            throw new TokenRejectedException("the Authorization header must be 'Bearer <token>' (the admin token is in "
                    + tokenFile + ")", null);
        }
        String token = authorization.substring(PREFIX.length()).strip();
        try {
            verifier.verify(token);
        } catch (TokenRejectedException e) {
            throw new TokenRejectedException(e.getMessage() + "; the node's admin token is in " + tokenFile, e);
        }
    }
}
