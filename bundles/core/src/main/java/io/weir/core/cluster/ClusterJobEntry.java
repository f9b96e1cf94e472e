package io.weir.core.cluster;

/**
 * One job of the cluster, as the cluster's job store holds it.
 *
 * @param id the job's id for its whole life in the cluster (32 hex, the same on every member and across owners)
 * @param name the job's name (unique among the cluster's running jobs)
 * @param status RUNNING, FINISHED, FAILED or CANCELED (the store's view; the owner knows finer states)
 * @param ownerId the member id of the node that runs or last ran it, or null while unassigned
 * @param ownerUrl that node's REST URL, "" while unassigned
 * @param epoch the fencing epoch (≥ 0): raised by one at every assignment and by a cancel
 * @param submitTime ms since the epoch
 * @param message why it ended, else ""
 * @param local whether this node is its owner
 */
public record ClusterJobEntry(String id, String name, String status, String ownerId, String ownerUrl, long epoch,
        long submitTime, String message, boolean local) {
    /** @throws IllegalArgumentException if the id, name or status is blank, or the epoch is negative */
    public ClusterJobEntry {
        if (id == null || id.isBlank() || name == null || name.isBlank() || status == null || status.isBlank()) {
            throw new IllegalArgumentException("a cluster job needs an id, a name and a status, got " + id + ", " + name + ", " + status);
        }
        if (epoch < 0) {
            throw new IllegalArgumentException("job " + name + ": epoch must be >= 0, got " + epoch);
        }
        ownerUrl = ownerUrl == null ? "" : ownerUrl;
        message = message == null ? "" : message;
    }

    /** @return whether the job ended (FINISHED, FAILED, CANCELED) */
    public boolean ended() {
        return !"RUNNING".equals(status);
    }
}
