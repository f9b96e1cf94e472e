package io.weir.rest.resource;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HEAD;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.Test;

import java.io.StringReader;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAPI document served at {@code GET /openapi.json} cannot drift from the code: every JAX-RS resource
 * method (found by reflection) is in it with its HTTP method and path parameters, it names no operation
 * the code lacks, and it parses as JSON with a bearer security scheme.
 */
class OpenApiDocumentTest {
    /**
     * Every resource class of the bundle, and the cluster's ({@code ha-hazelcast}, served only by a node started with
     * {@code --cluster}); a new one must be added here (and to the document).
     */
    private static final List<Class<?>> RESOURCES = List.of(JobsResource.class, NodeResource.class, OpenApiResource.class,
            io.weir.rest.plugins.PluginsResource.class, io.weir.ha.hazelcast.ClusterResource.class);
    private static final Map<Class<? extends Annotation>, String> METHODS = Map.of(GET.class, "get", POST.class, "post",
            PUT.class, "put", PATCH.class, "patch", DELETE.class, "delete", HEAD.class, "head");
    private static final Pattern PARAM = Pattern.compile("\\{([^}:]+)[^}]*}");

    private static JsonObject document() {
        try (JsonReader r = Json.createReader(new StringReader(OpenApiResource.read()))) {
            return r.readObject();
        }
    }

    /** @return "get /jobs/{}/checkpoints" for every resource method: path parameters blanked, their names aside */
    private static Set<String> operationsInCode() {
        Set<String> ops = new TreeSet<>();
        for (Class<?> c : RESOURCES) {
            String base = c.getAnnotation(Path.class).value();
            for (Method m : c.getMethods()) {
                for (Map.Entry<Class<? extends Annotation>, String> http : METHODS.entrySet()) {
                    if (m.isAnnotationPresent(http.getKey())) {
                        Path sub = m.getAnnotation(Path.class);
                        ops.add(http.getValue() + " " + join(base, sub == null ? "" : sub.value()));
                    }
                }
            }
        }
        return ops;
    }

    private static String join(String base, String sub) {
        String p = ("/" + base + "/" + sub).replaceAll("/+", "/");
        return p.length() > 1 && p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    private static Set<String> operationsInDocument(JsonObject doc) {
        Set<String> ops = new TreeSet<>();
        for (Map.Entry<String, JsonValue> path : doc.getJsonObject("paths").entrySet()) {
            for (String method : path.getValue().asJsonObject().keySet()) {
                ops.add(method + " " + path.getKey());
            }
        }
        return ops;
    }

    private static Set<String> blankParams(Set<String> ops) {
        Set<String> result = new TreeSet<>();
        ops.forEach(o -> result.add(PARAM.matcher(o).replaceAll("{}")));
        return result;
    }

    @Test
    void theDocumentIsOpenApi3JsonWithABearerScheme() {
        JsonObject doc = document();

        assertThat(doc.getString("openapi")).startsWith("3.");
        JsonObject bearer = doc.getJsonObject("components").getJsonObject("securitySchemes").getJsonObject("bearer");
        assertThat(bearer.getString("type")).isEqualTo("http");
        assertThat(bearer.getString("scheme")).isEqualTo("bearer");
    }

    @Test
    void everyResourceMethodIsInTheDocumentAndNothingElse() {
        Set<String> code = operationsInCode();

        assertThat(code).as("reflection found the resource methods").contains("get /jobs/{id}/exceptions", "post /jobs", "get /cluster",
                "get /cluster/jobs");
        assertThat(blankParams(operationsInDocument(document()))).isEqualTo(blankParams(code));
    }

    @Test
    void everyPathParameterIsDeclaredAndMutationsNeedTheBearerToken() {
        JsonObject paths = document().getJsonObject("paths");
        for (Map.Entry<String, JsonValue> path : paths.entrySet()) {
            Set<String> inPath = new TreeSet<>();
            Matcher m = PARAM.matcher(path.getKey());
            while (m.find()) {
                inPath.add(m.group(1));
            }
            for (Map.Entry<String, JsonValue> op : path.getValue().asJsonObject().entrySet()) {
                JsonObject operation = op.getValue().asJsonObject();
                Set<String> declared = new TreeSet<>();
                if (operation.containsKey("parameters")) {
                    operation.getJsonArray("parameters").getValuesAs(JsonObject.class).stream()
                            .filter(p -> p.getString("in").equals("path")).forEach(p -> declared.add(p.getString("name")));
                }
                String where = op.getKey() + " " + path.getKey();
                assertThat(declared).as(where).isEqualTo(inPath);
                assertThat(operation.getJsonObject("responses").keySet()).as(where).isNotEmpty();
                boolean secured = !operation.getJsonArray("security").isEmpty();
                assertThat(secured).as(where + " needs a token iff it is not a GET").isEqualTo(!op.getKey().equals("get"));
                if (secured) {
                    assertThat(operation.getJsonObject("responses").keySet()).as(where).contains("401");
                }
            }
        }
    }
}
