package io.weir.rest.security;

/** A bearer token is missing, malformed, expired or not signed by this node's key (REST: 401). */
public final class TokenRejectedException extends Exception {
    private static final long serialVersionUID = 1L;

    /**
     * @param message the reason, never containing the token itself
     * @param cause the verifier's exception, or null
     */
    public TokenRejectedException(String message, Throwable cause) {
        super(message, cause);
    }
}
