package io.weir.console.poll;

import java.util.List;

/**
 * Everything one poll of all nodes saw. Immutable.
 *
 * @param takenAt when the poll ended, ms since the epoch; 0 before the first poll
 * @param nodes every configured node, in configuration order
 * @param jobs every job of every node that answered, newest first per node
 */
public record Snapshot(long takenAt, List<NodeStatus> nodes, List<JobRow> jobs) {
    /** The snapshot before the first poll. */
    public static final Snapshot EMPTY = new Snapshot(0, List.of(), List.of());

    public Snapshot {
        nodes = List.copyOf(nodes);
        jobs = List.copyOf(jobs);
    }
}
