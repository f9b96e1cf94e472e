package io.weir.ha.hazelcast.jobs;

import com.hazelcast.map.EntryProcessor;

import java.io.Serializable;
import java.util.Map;
import java.util.Objects;

/**
 * The only way a job-store entry changes: atomic on the key's partition owner, each operation a compare-and-set on
 * the owner and epoch the caller believes in. Immutable and serializable.
 *
 * @param op what to do
 * @param job for SUBMIT: the new job; null otherwise
 * @param member for ASSIGN the new owner; for RENEW and END the caller (the owner)
 * @param url for ASSIGN: the new owner's REST URL
 * @param epoch for ASSIGN the epoch the leader saw; for RENEW and END the owner's epoch
 * @param status for END: the terminal status
 * @param message for END: why
 */
public record JobStoreProcessor(Op op, ClusterJob job, String member, String url, long epoch, ClusterJobStatus status,
        String message) implements EntryProcessor<String, ClusterJob, JobStoreProcessor.Result> {
    private static final long serialVersionUID = 1L;

    /** The operations. */
    public enum Op {
        /** Adds a job unless one of that name is RUNNING; the epoch continues from an ended job of the same name. */
        SUBMIT,
        /** Gives a RUNNING job of epoch {@code epoch} to {@code member} under epoch + 1. */
        ASSIGN,
        /** Succeeds if {@code member} still owns the RUNNING job under {@code epoch}; changes nothing. */
        RENEW,
        /** The owner reports its run ended for good: sets {@code status} if it still owns the job under {@code epoch}. */
        END,
        /** A user cancels: a RUNNING job becomes CANCELED under epoch + 1 (its owner's copy is fenced off). */
        CANCEL
    }

    /**
     * @param ok whether the operation applied (for RENEW: whether the lease is still the caller's)
     * @param job the entry after the operation (or as found when refused), null if there is none
     */
    public record Result(boolean ok, ClusterJob job) implements Serializable {
    }

    @Override
    public Result process(Map.Entry<String, ClusterJob> entry) {
        ClusterJob current = entry.getValue();
        switch (op) {
            case SUBMIT -> {
                if (current != null && !current.status().isTerminal()) {
                    return new Result(false, current);
                }
                ClusterJob added = new ClusterJob(job.name(), job.spec(), job.baseDirectory(), job.overrides(),
                        ClusterJobStatus.RUNNING, null, "", current == null ? 0 : current.epoch(), job.submitTime(), "");
                entry.setValue(added);
                return new Result(true, added);
            }
            case ASSIGN -> {
                if (current == null || current.status().isTerminal() || current.epoch() != epoch) {
                    return new Result(false, current);
                }
                ClusterJob assigned = current.assignedTo(member, url);
                entry.setValue(assigned);
                return new Result(true, assigned);
            }
            case RENEW -> {
                return new Result(owns(current), current);
            }
            case END -> {
                if (!owns(current)) {
                    return new Result(false, current);
                }
                ClusterJob ended = current.ended(status, message, false);
                entry.setValue(ended);
                return new Result(true, ended);
            }
            case CANCEL -> {
                if (current == null || current.status().isTerminal()) {
                    return new Result(false, current);
                }
                ClusterJob cancelled = current.ended(ClusterJobStatus.CANCELED, "cancelled by a user", true);
                entry.setValue(cancelled);
                return new Result(true, cancelled);
            }
            default -> throw new IllegalStateException("unknown job store operation " + op);
        }
    }

    private boolean owns(ClusterJob current) {
        return current != null && current.status() == ClusterJobStatus.RUNNING && Objects.equals(current.owner(), member)
                && current.epoch() == epoch;
    }
}
