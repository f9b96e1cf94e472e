package io.weir.console.api;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The sentences the console answers for the REST runtime's own errors (the page shows them instead of "HTTP 404"). */
class WebErrorMapperTest {

    @Test
    void ourOwnMessagePassesUnchanged() {
        assertThat(WebErrorMapper.message(404, "no node 'nope' in this console's configuration; configured: [local]"))
                .isEqualTo("no node 'nope' in this console's configuration; configured: [local]");
    }

    @Test
    void unknownPathSaysSoWithoutTheRuntimesCode() {
        assertThat(WebErrorMapper.message(404, "RESTEASY003210: Could not find resource for full path: http://127.0.0.1:9080/console/api/bogus"))
                .isEqualTo("no such resource in the console's API, or a parameter that is not valid (see GET /openapi): "
                        + "Could not find resource for full path: http://127.0.0.1:9080/console/api/bogus");
    }

    @Test
    void missingLoginAndWrongRoleAreSentences() {
        assertThat(WebErrorMapper.message(401, "HTTP 401 Unauthorized"))
                .isEqualTo("log in first: actions need the token of a user with role operator (POST /api/login)");
        assertThat(WebErrorMapper.message(403, null)).isEqualTo("your user may not do this: it needs role operator");
    }

    @Test
    void wrongContentTypeNamesTheExpectedOnes() {
        assertThat(WebErrorMapper.message(415, "RESTEASY003065: Cannot consume content type"))
                .isEqualTo("unsupported Content-Type: send JSON to POST /api/login, application/java-archive to a plugin upload");
    }
}
