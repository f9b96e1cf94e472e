package io.weir.console.diagnosis;

/** The causes of a slow or failing checkpoint (PROTOCOL.md §9) that {@link Diagnoser} tells apart. */
public enum Cause {
    /** Nothing to report: the checkpoint was fast. */
    HEALTHY,
    /** Aligned checkpoint: the barrier queued behind buffered records (large start delay downstream). */
    BACKPRESSURE,
    /** Unaligned checkpoint under backpressure: barriers overtook the buffers, which were stored as in-flight data. */
    BACKPRESSURE_IN_FLIGHT,
    /** One input delivered the barrier much later than the others. */
    ALIGNMENT,
    /** The synchronous snapshot part blocked processing. */
    SYNC_PHASE,
    /** Writing the state took long because the state is big. */
    BIG_STATE,
    /** Writing the state took long for its size: slow storage. */
    SLOW_STORAGE,
    /** Checkpoints take about as long as the interval: the job lives in back-to-back checkpoints. */
    BACK_TO_BACK,
    /** The newest checkpoint failed or expired. */
    FAILED,
    /** No completed checkpoint yet. */
    NO_DATA
}
