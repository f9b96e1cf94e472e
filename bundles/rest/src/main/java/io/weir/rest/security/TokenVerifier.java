package io.weir.rest.security;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;

import java.text.ParseException;
import java.util.Set;

/**
 * Verifies bearer tokens: RS256-signed JWTs of type {@code JWT} with this node's key, issuer
 * {@value NodeKeys#ISSUER}, audience {@value NodeKeys#AUDIENCE}, and {@code sub}, {@code iat},
 * {@code exp} present and not expired.
 *
 * <p>Thread-safe: nimbus' processor is immutable after construction.
 */
public final class TokenVerifier {
    private final DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();

    /** @param key the node's RSA key (its public part is used) */
    public TokenVerifier(RSAKey key) {
        processor.setJWSTypeVerifier(new DefaultJOSEObjectTypeVerifier<>(JOSEObjectType.JWT));
        processor.setJWSKeySelector(new JWSVerificationKeySelector<>(JWSAlgorithm.RS256,
                new ImmutableJWKSet<>(new JWKSet(key.toPublicJWK()))));
        processor.setJWTClaimsSetVerifier(new DefaultJWTClaimsVerifier<>(NodeKeys.AUDIENCE,
                new JWTClaimsSet.Builder().issuer(NodeKeys.ISSUER).build(), Set.of("sub", "iat", "exp")));
    }

    /**
     * @param token the compact JWT (the part after {@code Bearer })
     * @return the token's subject
     * @throws TokenRejectedException with the reason (e.g. "Expired JWT", "Signed JWT rejected:
     *         Invalid signature", "Invalid JWT serialization") if it does not verify
     */
    public String verify(String token) throws TokenRejectedException {
        try {
            return processor.process(token, null).getSubject();
        } catch (ParseException e) {
            throw new TokenRejectedException("the bearer token is not a JWT (" + e.getMessage() + ")", e);
        } catch (BadJOSEException | JOSEException e) {
            throw new TokenRejectedException("the bearer token was rejected: " + e.getMessage(), e);
        }
    }
}
