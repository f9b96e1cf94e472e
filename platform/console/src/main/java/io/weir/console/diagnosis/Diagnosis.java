package io.weir.console.diagnosis;

/**
 * What {@link Diagnoser} concluded: the cause and one or two sentences for the operator.
 *
 * @param cause the cause, not null
 * @param checkpointId the checkpoint the text is about; -1 when there is none
 * @param text the explanation with the figures it rests on and what would help, not blank
 */
public record Diagnosis(Cause cause, long checkpointId, String text) {
    /** @throws IllegalArgumentException when the cause is null or the text blank */
    public Diagnosis {
        if (cause == null || text == null || text.isBlank()) {
            throw new IllegalArgumentException("a diagnosis needs a cause and a text, got " + cause + " / " + text);
        }
    }
}
