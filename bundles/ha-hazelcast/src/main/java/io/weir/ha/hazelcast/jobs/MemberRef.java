package io.weir.ha.hazelcast.jobs;

/**
 * A cluster member as job assignment sees it.
 *
 * @param id the Hazelcast member UUID
 * @param url the node's REST URL ("" if unknown)
 */
public record MemberRef(String id, String url) {
}
