package io.weir.launcher;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a node joins a cluster ({@code weir node --cluster host:port,... [--cluster-port N]}; docs/ha.md).
 *
 * @param members every member's {@code host:port}, at least one, each listed separately (no port ranges)
 * @param port this node's member port: one of the members' ports
 */
public record NodeCluster(List<String> members, int port) {
    /** Feature whose bundles a cluster node adds to the node feature. */
    static final String FEATURE = "cluster";

    /** @throws LauncherException (exit 2) for an empty list, a member that is not host:port, or a bad port */
    public NodeCluster {
        members = List.copyOf(members);
        if (members.isEmpty()) {
            throw new LauncherException(ExitCodes.USAGE, "--cluster must list the members as host:port,host:port,...");
        }
        for (String m : members) {
            portOf(m);
        }
        if (port < 1 || port > 65535) {
            throw new LauncherException(ExitCodes.USAGE, "--cluster-port must be 1..65535, got " + port);
        }
    }

    /**
     * @param list {@code --cluster}'s value
     * @param port {@code --cluster-port}, or null to take the first listed member on 127.0.0.1 whose port is free
     * @return the settings
     * @throws LauncherException (exit 2) for a malformed list, or if no listed 127.0.0.1 port is free
     */
    static NodeCluster parse(String list, Integer port) {
        List<String> members = new ArrayList<>();
        for (String m : list.split(",")) {
            if (!m.isBlank()) {
                members.add(m.strip());
            }
        }
        if (port != null) {
            return new NodeCluster(members, port);
        }
        for (String m : members) {
            String host = m.substring(0, Math.max(0, m.lastIndexOf(':')));
            if ((host.equals("127.0.0.1") || host.equals("localhost")) && free(portOf(m))) {
                return new NodeCluster(members, portOf(m));
            }
        }
        throw new LauncherException(ExitCodes.USAGE, "no member of --cluster " + list + " is a free port on 127.0.0.1 (all"
                + " taken by running nodes?); give this node's port with --cluster-port");
    }

    /** @return the framework properties the cluster bundle reads ({@code io.weir.ha.hazelcast.member.ClusterSettings}) */
    Map<String, String> frameworkProperties(NodeSettings node) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("weir.cluster.members", String.join(",", members));
        p.put("weir.cluster.port", String.valueOf(port));
        p.put("weir.cluster.host", NodeSettings.HOST);
        p.put("weir.cluster.node-url", node.url().toString());
        return p;
    }

    private static int portOf(String member) {
        int colon = member.lastIndexOf(':');
        try {
            if (colon <= 0) {
                throw new NumberFormatException();
            }
            int p = Integer.parseInt(member.substring(colon + 1));
            if (p < 1 || p > 65535) {
                throw new NumberFormatException();
            }
            return p;
        } catch (NumberFormatException e) {
            throw new LauncherException(ExitCodes.USAGE, "--cluster: '" + member + "' is not host:port with a port 1..65535"
                    + " (list each member separately, e.g. 127.0.0.1:5701,127.0.0.1:5702)");
        }
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
