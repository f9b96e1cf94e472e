package io.weir.ha.hazelcast.member;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * How this node joins the cluster: the framework properties {@code weir node --cluster} sets (docs/ha.md).
 *
 * @param name the Hazelcast cluster name ({@value #NAME}, default {@value #DEFAULT_NAME}); nodes with another name
 *        never join
 * @param host the address the member binds and announces ({@value #HOST}, default {@value #DEFAULT_HOST})
 * @param port this member's TCP port ({@value #PORT}), 1..65535
 * @param members every member's {@code host:port} ({@value #MEMBERS}, comma-separated), at least one; TCP/IP join
 *        tries each
 * @param nodeUrl this node's REST URL, shown to users as the owner of its jobs ({@value #NODE_URL}); may be empty
 * @param heartbeatSeconds {@value #HEARTBEAT}: how often members heartbeat, ≥ 1 (default {@value #DEFAULT_HEARTBEAT})
 * @param maxNoHeartbeatSeconds {@value #MAX_NO_HEARTBEAT}: silence after which a member is removed, &gt; heartbeat
 *        (default {@value #DEFAULT_MAX_NO_HEARTBEAT}); bounds how long a hung owner keeps its jobs
 */
public record ClusterSettings(String name, String host, int port, List<String> members, String nodeUrl, int heartbeatSeconds,
        int maxNoHeartbeatSeconds) {
    /** Framework property: the member list; its presence turns cluster mode on. */
    public static final String MEMBERS = "weir.cluster.members";
    /** Framework property: this member's port. */
    public static final String PORT = "weir.cluster.port";
    /** Framework property: bind address. */
    public static final String HOST = "weir.cluster.host";
    /** Framework property: cluster name. */
    public static final String NAME = "weir.cluster.name";
    /** Framework property: the node's REST URL. */
    public static final String NODE_URL = "weir.cluster.node-url";
    /** Framework property: heartbeat interval in seconds. */
    public static final String HEARTBEAT = "weir.cluster.heartbeat-seconds";
    /** Framework property: seconds without a heartbeat before a member is removed. */
    public static final String MAX_NO_HEARTBEAT = "weir.cluster.max-no-heartbeat-seconds";
    /** Default cluster name. */
    public static final String DEFAULT_NAME = "weir";
    /** Default bind address: this machine only. */
    public static final String DEFAULT_HOST = "127.0.0.1";
    /** Default heartbeat interval (Hazelcast's is 5 s). */
    public static final int DEFAULT_HEARTBEAT = 1;
    /** Default silence before removal (Hazelcast's is 60 s; RECIPES §8: a hung member then goes in ~2.7 s). */
    public static final int DEFAULT_MAX_NO_HEARTBEAT = 3;

    /**
     * @throws IllegalArgumentException naming the property if a value is missing or out of range
     */
    public ClusterSettings {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException(NAME + " must not be blank");
        }
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException(HOST + " must not be blank");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(PORT + " must be 1..65535, got " + port);
        }
        members = List.copyOf(members);
        if (members.isEmpty()) {
            throw new IllegalArgumentException(MEMBERS + " must list at least one host:port");
        }
        for (String m : members) {
            parseAddress(m);
        }
        nodeUrl = nodeUrl == null ? "" : nodeUrl;
        if (heartbeatSeconds < 1) {
            throw new IllegalArgumentException(HEARTBEAT + " must be >= 1, got " + heartbeatSeconds);
        }
        if (maxNoHeartbeatSeconds <= heartbeatSeconds) {
            throw new IllegalArgumentException(MAX_NO_HEARTBEAT + " must be above " + HEARTBEAT + " (" + heartbeatSeconds
                    + "), got " + maxNoHeartbeatSeconds);
        }
    }

    /** @return a majority of the configured members: the least cluster size in which jobs run and move */
    public int quorum() {
        return members.size() / 2 + 1;
    }

    /**
     * @param property reads a framework property (null if unset)
     * @return the settings
     * @throws IllegalArgumentException naming the property if a value is missing or malformed
     */
    public static ClusterSettings fromProperties(Function<String, String> property) {
        String list = property.apply(MEMBERS);
        if (list == null || list.isBlank()) {
            throw new IllegalArgumentException(MEMBERS + " is not set: start the node with --cluster host:port,host:port,...");
        }
        List<String> members = new ArrayList<>();
        for (String m : list.split(",")) {
            if (!m.isBlank()) {
                members.add(m.strip());
            }
        }
        return new ClusterSettings(orDefault(property.apply(NAME), DEFAULT_NAME), orDefault(property.apply(HOST), DEFAULT_HOST),
                integer(property, PORT, -1), members, property.apply(NODE_URL), integer(property, HEARTBEAT, DEFAULT_HEARTBEAT),
                integer(property, MAX_NO_HEARTBEAT, DEFAULT_MAX_NO_HEARTBEAT));
    }

    /**
     * @param address {@code host:port}
     * @return the port
     * @throws IllegalArgumentException naming the address if it is not {@code host:port} with a port 1..65535
     */
    public static int parseAddress(String address) {
        int colon = address.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException(MEMBERS + ": '" + address + "' is not host:port (list each member, e.g."
                    + " 127.0.0.1:5701,127.0.0.1:5702)");
        }
        try {
            int port = Integer.parseInt(address.substring(colon + 1));
            if (port < 1 || port > 65535) {
                throw new NumberFormatException();
            }
            return port;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(MEMBERS + ": '" + address + "' has no port 1..65535 (port ranges are not"
                    + " accepted: list each member)");
        }
    }

    private static String orDefault(String value, String fallback) {
        return value == null || value.isBlank() ? fallback : value.strip();
    }

    private static int integer(Function<String, String> property, String key, int fallback) {
        String value = property.apply(key);
        if (value == null || value.isBlank()) {
            if (fallback < 0) {
                throw new IllegalArgumentException(key + " is not set");
            }
            return fallback;
        }
        try {
            return Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be an integer, got '" + value + "'");
        }
    }
}
