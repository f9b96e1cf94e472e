package io.weir.launcher;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which bundles make up a deployment, and the framework configuration it needs: a feature file
 * such as {@code conf/features/embedded.json} (source: {@code features/src/main/features/}).
 * <pre>
 * {
 *   "name": "embedded",
 *   "description": "...",
 *   "bundles": [
 *     {"file": "org.apache.aries.spifly.dynamic.framework.extension-1.3.7.jar", "startLevel": 1},
 *     "org.apache.felix.scr-2.2.12.jar",
 *     ...
 *   ],
 *   "config": {"felix.fileinstall.poll": "100", ...}
 * }
 * </pre>
 * A bundle entry is a file name in the distribution's {@code bundles/} directory, or an object with
 * {@code file} and an optional {@code startLevel} (default {@value #DEFAULT_START_LEVEL}). Bundles are
 * installed in the listed order. {@code config} holds framework properties (string values).
 *
 * @param name the feature's name
 * @param description what it is for
 * @param bundles the bundles, in install order
 * @param config framework properties
 */
public record FeatureDescriptor(String name, String description, List<BundleEntry> bundles, Map<String, String> config) {
    /** Start level of a bundle entry without {@code startLevel}. */
    public static final int DEFAULT_START_LEVEL = 2;

    /**
     * @throws IllegalArgumentException if the name is blank or there are no bundles
     */
    public FeatureDescriptor {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("feature name is required");
        }
        if (bundles == null || bundles.isEmpty()) {
            throw new IllegalArgumentException("feature " + name + " lists no bundles");
        }
        bundles = List.copyOf(bundles);
        config = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(config));
    }

    /**
     * One bundle of a feature.
     *
     * @param file the jar's file name in {@code bundles/}
     * @param startLevel its OSGi start level, at least 1
     */
    public record BundleEntry(String file, int startLevel) {
        /** @throws IllegalArgumentException if the file name is blank or holds a path, or the level is below 1 */
        public BundleEntry {
            if (file == null || file.isBlank() || file.contains("/") || file.contains("\\")) {
                throw new IllegalArgumentException("bundle file must be a plain file name in bundles/, got '" + file + "'");
            }
            if (startLevel < 1) {
                throw new IllegalArgumentException("startLevel of " + file + " must be at least 1, got " + startLevel);
            }
        }
    }

    /**
     * @param file the feature file
     * @return the feature
     * @throws LauncherException (exit 1) if the file is missing or malformed, naming the file and the field
     */
    public static FeatureDescriptor read(Path file) {
        try (Reader r = Files.newBufferedReader(file); JsonReader json = Json.createReader(r)) {
            JsonValue root = json.readValue();
            if (!(root instanceof JsonObject o)) {
                throw new IllegalArgumentException("must hold a JSON object");
            }
            return fromJson(o);
        } catch (IOException e) {
            throw new LauncherException(ExitCodes.FAILED, "cannot read feature file " + file + ": " + e, e);
        } catch (JsonException | IllegalArgumentException | ClassCastException e) {
            throw new LauncherException(ExitCodes.FAILED, "feature file " + file + " is invalid: " + e.getMessage(), e);
        }
    }

    /** @throws IllegalArgumentException naming the field */
    static FeatureDescriptor fromJson(JsonObject o) {
        if (!(o.get("name") instanceof JsonString name)) {
            throw new IllegalArgumentException("name is required (a string)");
        }
        String description = o.get("description") instanceof JsonString d ? d.getString() : "";
        if (!(o.get("bundles") instanceof JsonArray list)) {
            throw new IllegalArgumentException("bundles is required (an array of file names)");
        }
        List<BundleEntry> bundles = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            JsonValue v = list.get(i);
            if (v instanceof JsonString s) {
                bundles.add(new BundleEntry(s.getString(), DEFAULT_START_LEVEL));
            } else if (v instanceof JsonObject e && e.get("file") instanceof JsonString f) {
                int level = DEFAULT_START_LEVEL;
                if (e.containsKey("startLevel")) {
                    if (!(e.get("startLevel") instanceof JsonNumber n) || !n.isIntegral()) {
                        throw new IllegalArgumentException("bundles[" + i + "].startLevel must be a whole number");
                    }
                    level = n.intValue();
                }
                bundles.add(new BundleEntry(f.getString(), level));
            } else {
                throw new IllegalArgumentException("bundles[" + i + "] must be a file name or {\"file\": ..., \"startLevel\": ...}, got " + v);
            }
        }
        Map<String, String> config = new LinkedHashMap<>();
        if (o.containsKey("config")) {
            if (!(o.get("config") instanceof JsonObject c)) {
                throw new IllegalArgumentException("config must be an object of framework properties");
            }
            for (Map.Entry<String, JsonValue> e : c.entrySet()) {
                JsonValue v = e.getValue();
                config.put(e.getKey(), v instanceof JsonString s ? s.getString() : v.toString());
            }
        }
        return new FeatureDescriptor(name.getString(), description, bundles, config);
    }

    /**
     * @param bundlesDir the distribution's {@code bundles/} directory
     * @return each bundle's jar, in install order
     * @throws LauncherException (exit 1) naming every listed jar that is not in {@code bundlesDir}
     */
    public List<Path> resolve(Path bundlesDir) {
        List<Path> jars = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (BundleEntry b : bundles) {
            Path jar = bundlesDir.resolve(b.file());
            if (Files.isRegularFile(jar)) {
                jars.add(jar);
            } else {
                missing.add(b.file());
            }
        }
        if (!missing.isEmpty()) {
            throw new LauncherException(ExitCodes.FAILED, "feature '" + name + "' needs bundles that are not in " + bundlesDir
                    + ": " + String.join(", ", missing) + ". Rebuild the distribution (mvn install) or fix the feature file.");
        }
        return jars;
    }
}
