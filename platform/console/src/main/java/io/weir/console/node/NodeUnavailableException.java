package io.weir.console.node;

/** The node did not answer: connection refused, timed out, or an answer that is not the node's JSON. */
public final class NodeUnavailableException extends RuntimeException {
    /**
     * @param node the node's name in the console's configuration
     * @param url its base URL
     * @param cause what failed
     */
    public NodeUnavailableException(String node, String url, Throwable cause) {
        super("node '" + node + "' at " + url + " is not reachable: " + cause.getMessage(), cause);
    }
}
