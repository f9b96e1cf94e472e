package io.weir.core.job;

/** What kind of plugin a job vertex runs. */
public enum VertexKind {
    /** A {@code SourceReader}; no inputs. */
    SOURCE,
    /** A {@code StreamOperator}. */
    OPERATOR,
    /** A {@code TwoPhaseCommittingSink}; no outputs. */
    SINK
}
