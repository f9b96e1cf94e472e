package io.weir.ha.hazelcast.forward;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import io.weir.core.cluster.ClusterJobs;

import java.io.Serializable;
import java.util.concurrent.Callable;

/**
 * A REST request one member sends another over the cluster's connections (an executor task run on the target
 * member), which the target answers through its own API ({@link LocalEndpoint}). The sender has authenticated the
 * request; the target uses its own token, so no node ever sees another node's token.
 *
 * <p>Threads: built by the sender; on the target Hazelcast sets {@link #target} before it calls {@link #call} once.
 */
public final class ForwardedRequest implements Callable<ClusterJobs.Answer>, Serializable, HazelcastInstanceAware {
    private static final long serialVersionUID = 1L;

    private final String method;
    private final String pathAndQuery;
    private final String body;
    /** The member it runs on; set by Hazelcast on the target before {@link #call}. */
    private transient volatile HazelcastInstance target;

    /**
     * @param method HTTP method
     * @param pathAndQuery path and query, URL-encoded, starting with {@code /}
     * @param body the body, or null
     * @throws IllegalArgumentException if the method is blank or the path does not start with {@code /}
     */
    public ForwardedRequest(String method, String pathAndQuery, String body) {
        if (method == null || method.isBlank() || pathAndQuery == null || !pathAndQuery.startsWith("/")) {
            throw new IllegalArgumentException("a forwarded request needs a method and a path starting with '/', got " + method + " "
                    + pathAndQuery);
        }
        this.method = method;
        this.pathAndQuery = pathAndQuery;
        this.body = body;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
        this.target = instance;
    }

    @Override
    public ClusterJobs.Answer call() {
        HazelcastInstance hz = target;
        Object endpoint = hz == null ? null : hz.getUserContext().get(LocalEndpoint.KEY);
        if (!(endpoint instanceof LocalEndpoint local)) {
            return LocalEndpoint.error("this member's REST API is not ready yet; try again");
        }
        return local.send(method, pathAndQuery, body);
    }

    @Override
    public String toString() {
        return method + " " + pathAndQuery;
    }
}
