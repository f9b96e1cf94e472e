package io.weir.console.security;

import io.weir.console.ConsoleOptions;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The console's users from {@value ConsoleOptions#USERS} ({@code name:password:role|role,...}). Checks a password in
 * constant time. Never logs a password. Immutable after start.
 */
@ApplicationScoped
public class ConsoleUsers {
    @Inject
    Config config;

    private Map<String, User> users = Map.of();

    /** One user. */
    record User(String name, byte[] password, Set<String> roles) {
    }

    @PostConstruct
    void init() {
        users = parse(config.getOptionalValue(ConsoleOptions.USERS, String.class).orElse(""));
    }

    /**
     * @throws IllegalArgumentException naming the malformed entry by its position (never its password)
     */
    static Map<String, User> parse(String spec) {
        Map<String, User> out = new LinkedHashMap<>();
        int position = 0;
        for (String entry : spec.split(",")) {
            position++;
            if (entry.isBlank()) {
                continue;
            }
            // name up to the first ':', roles after the last: the password may contain ':'
            String e = entry.strip();
            int first = e.indexOf(':');
            int last = e.lastIndexOf(':');
            String[] parts = first < 0 || first == last ? new String[0]
                    : new String[] {e.substring(0, first), e.substring(first + 1, last), e.substring(last + 1)};
            if (parts.length != 3 || parts[0].isBlank() || parts[1].isEmpty() || parts[2].isBlank()) {
                throw new IllegalArgumentException(ConsoleOptions.USERS + ": entry " + position
                        + " is not name:password:role[|role]; e.g. alice:s3cret:operator");
            }
            Set<String> roles = new LinkedHashSet<>(Arrays.stream(parts[2].split("\\|")).map(String::strip).filter(r -> !r.isEmpty()).toList());
            out.put(parts[0].strip(), new User(parts[0].strip(), parts[1].getBytes(StandardCharsets.UTF_8), Set.copyOf(roles)));
        }
        return Map.copyOf(out);
    }

    /** Replaces the users (tests). */
    ConsoleUsers withUsers(Map<String, User> parsed) {
        users = Map.copyOf(parsed);
        return this;
    }

    /** @return the user's roles when the name and password match; empty otherwise */
    public Optional<Set<String>> authenticate(String name, String password) {
        User u = name == null ? null : users.get(name);
        byte[] given = password == null ? new byte[0] : password.getBytes(StandardCharsets.UTF_8);
        // compare even for an unknown user, so the time does not tell which names exist
        boolean match = MessageDigest.isEqual(u == null ? new byte[] {0} : u.password(), given) && u != null;
        return match ? Optional.of(u.roles()) : Optional.empty();
    }

    /** @return whether any user is configured (otherwise actions are impossible and the page says so) */
    public boolean any() {
        return !users.isEmpty();
    }
}
