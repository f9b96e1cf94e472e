package io.weir.ha.hazelcast.jobs;

import io.weir.ha.hazelcast.member.Fenced;

import java.io.Serializable;
import java.util.Map;

/**
 * A job as the cluster's job store keeps it (map {@value ClusterJobStore#MAP}, key: the job name).
 *
 * @param name the job's name, non-blank
 * @param spec the job file's JSON as submitted
 * @param baseDirectory what relative paths in {@code spec} resolve against (absolute; all nodes must see it)
 * @param overrides {@code --set} options, including {@code execution.savepoint.path} for a job started from a savepoint
 * @param status where the job is
 * @param owner the Hazelcast member UUID of the node that runs it, null while unassigned
 * @param ownerUrl that node's REST URL, "" while unassigned
 * @param epoch the fencing epoch: raised by one at every assignment (and by a cancel), ≥ 0; the owner's lease on the
 *        job is valid only for this epoch
 * @param submitTime ms since the epoch
 * @param message why the job ended (FAILED), else ""
 */
public record ClusterJob(String name, String spec, String baseDirectory, Map<String, String> overrides, ClusterJobStatus status,
        String owner, String ownerUrl, long epoch, long submitTime, String message) implements Serializable, Fenced {
    /** @throws IllegalArgumentException if the name is blank, the epoch negative, or a RUNNING-only field is inconsistent */
    public ClusterJob {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a cluster job needs a name");
        }
        if (epoch < 0) {
            throw new IllegalArgumentException("job " + name + ": epoch must be >= 0, got " + epoch);
        }
        overrides = Map.copyOf(overrides);
        ownerUrl = ownerUrl == null ? "" : ownerUrl;
        message = message == null ? "" : message;
    }

    /**
     * @return the job's id for its whole life in the cluster: 32 hex digits derived from its name and submit time, so
     *         it is the same on every member and across owners, and a job submitted again under the same name gets a
     *         new one (like Flink's JobID, which also names one submission)
     */
    public String id() {
        java.util.UUID uuid = java.util.UUID.nameUUIDFromBytes((name + "\n" + submitTime).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return java.util.HexFormat.of().formatHex(java.nio.ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits())
                .putLong(uuid.getLeastSignificantBits()).array());
    }

    /** @return 1 once the job ended, else 0: after a split, an END under the same epoch wins over the RUNNING copy */
    @Override
    public long progress() {
        return status.isTerminal() ? 1 : 0;
    }

    /** @return this job assigned to {@code member} under the next epoch */
    ClusterJob assignedTo(String member, String url) {
        return new ClusterJob(name, spec, baseDirectory, overrides, ClusterJobStatus.RUNNING, member, url, epoch + 1, submitTime, "");
    }

    /** @return this job ended with {@code to}; a cancel also raises the epoch, fencing the owner's copy */
    ClusterJob ended(ClusterJobStatus to, String why, boolean fence) {
        return new ClusterJob(name, spec, baseDirectory, overrides, to, owner, ownerUrl, fence ? epoch + 1 : epoch, submitTime, why);
    }
}
