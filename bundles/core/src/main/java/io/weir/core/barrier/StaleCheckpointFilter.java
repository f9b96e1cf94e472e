package io.weir.core.barrier;

/**
 * The checkpoint ids a handler that works on one checkpoint at a time has seen and finished, and
 * the rule that makes a barrier or cancel marker stale (PROTOCOL.md §4): its id is at most the
 * highest id triggered or aborted here, or below the id of the checkpoint in progress. Stale
 * events are ignored; ids only grow.
 *
 * <p>Task thread only: not thread-safe, owned by one handler.
 */
public final class StaleCheckpointFilter {
    /** Highest id of any barrier or cancel marker seen (stale ones too), 0 if none. Task thread only. */
    private long latestSeenId;
    /** Highest id triggered or aborted here, 0 if none. Task thread only. */
    private long lastFinishedId;

    /** Creates a filter that has seen and finished nothing. */
    public StaleCheckpointFilter() {
    }

    /** Notes that a barrier or cancel marker of checkpoint {@code id} arrived. */
    public void observe(long id) {
        latestSeenId = Math.max(latestSeenId, id);
    }

    /**
     * @param id the checkpoint id of a barrier or cancel marker
     * @param inProgress the checkpoint in progress, null if none
     * @return whether the event is stale: {@code id ≤} {@link #lastFinishedId()} or older than {@code inProgress}
     */
    public boolean isStale(long id, PendingBarriers inProgress) {
        return id <= lastFinishedId || (inProgress != null && id < inProgress.checkpointId());
    }

    /** Notes that checkpoint {@code id} was triggered or aborted here: its later barriers are stale. */
    public void markFinished(long id) {
        lastFinishedId = Math.max(lastFinishedId, id);
    }

    /** @return the highest id of any barrier or cancel marker seen, 0 if none */
    public long latestSeenId() {
        return latestSeenId;
    }

    /** @return the highest id triggered or aborted here, 0 if none */
    public long lastFinishedId() {
        return lastFinishedId;
    }
}
