package io.weir.console.poll;

/**
 * What the console last saw of one node.
 *
 * @param name the node's name in the configuration
 * @param url its base URL
 * @param up whether its last poll answered
 * @param error why it is down (null when up)
 * @param version the node's {@code weir-version} (null when down)
 * @param checkedAt when it was polled, ms since the epoch
 */
public record NodeStatus(String name, String url, boolean up, String error, String version, long checkedAt) {
}
