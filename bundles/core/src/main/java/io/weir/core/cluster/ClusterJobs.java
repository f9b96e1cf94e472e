package io.weir.core.cluster;

import io.weir.core.job.InvalidJobException;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The jobs of the cluster this node belongs to, as the node's REST API needs them: registered only by a node started
 * with {@code --cluster} (bundle {@code ha-hazelcast}); a standalone node has no such service. Every method answers
 * from the cluster's job store, whatever member it is called on. Implementations are thread-safe.
 */
public interface ClusterJobs {
    /** @return every job of the cluster (running and ended), by name */
    List<ClusterJobEntry> jobs();

    /**
     * @param idOrName a cluster job id (32 hex) or a job name
     * @return the job, or empty if the cluster has none of that id or name
     */
    Optional<ClusterJobEntry> find(String idOrName);

    /**
     * Adds a job to the cluster; the leader gives it to the least loaded member.
     *
     * @param spec the job file's JSON
     * @param baseDirectory absolute; every member resolves the spec's relative paths against it
     * @param overrides {@code --set} options (including {@code execution.savepoint.path})
     * @return the stored job (status RUNNING, no owner yet)
     * @throws InvalidJobException naming the field if the spec is invalid
     * @throws IllegalStateException naming the job and its owner if a job of that name runs in the cluster
     */
    ClusterJobEntry submit(String spec, Path baseDirectory, Map<String, String> overrides) throws InvalidJobException;

    /**
     * Cancels a running job of the cluster: it becomes CANCELED under a new epoch (its owner's run is fenced off and
     * cancelled) and is never given to another member.
     *
     * @param idOrName see {@link #find}
     * @return the cancelled job
     * @throws IllegalArgumentException naming the job if the cluster has no such job or it already ended
     */
    ClusterJobEntry cancel(String idOrName);

    /** @return this node's REST URL, as the other members know it */
    String selfUrl();

    /**
     * Sends a REST request to another member's API (or this one's), over the cluster's own connections: the member
     * answers it with its own admin token, so the caller must have authenticated the request already. The member
     * handles it locally (it never forwards it again).
     *
     * @param memberId the member's id ({@link ClusterJobEntry#ownerId()})
     * @param method HTTP method
     * @param pathAndQuery e.g. {@code /jobs/ID/checkpoints}, already URL-encoded
     * @param body the request body, or null
     * @return the member's answer
     * @throws IllegalStateException naming the member if it is not in the cluster or does not answer within 30 s
     */
    Answer forward(String memberId, String method, String pathAndQuery, String body);

    /** The header a forwarded request carries; a node receiving it answers locally. */
    String FORWARDED_HEADER = "X-Weir-Forwarded";

    /**
     * A member's answer to a forwarded request.
     *
     * @param status HTTP status
     * @param contentType the answer's content type, or "" if none
     * @param body the answer's body, "" if none
     */
    record Answer(int status, String contentType, String body) implements java.io.Serializable {
        /** Normalizes null to "". */
        public Answer {
            contentType = contentType == null ? "" : contentType;
            body = body == null ? "" : body;
        }
    }
}
