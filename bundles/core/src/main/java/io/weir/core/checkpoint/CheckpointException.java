package io.weir.core.checkpoint;

/** A checkpoint failed for {@link #reason()}. */
public class CheckpointException extends Exception {
    private static final long serialVersionUID = 1L;
    private final CheckpointFailureReason reason;

    /** @param reason why; @param cause the underlying error, may be null */
    public CheckpointException(CheckpointFailureReason reason, String detail, Throwable cause) {
        super(reason.message() + (detail == null ? "" : " " + detail), cause);
        this.reason = reason;
    }

    /** @param reason why */
    public CheckpointException(CheckpointFailureReason reason) {
        this(reason, null, null);
    }

    /** @return why the checkpoint failed */
    public CheckpointFailureReason reason() {
        return reason;
    }
}
