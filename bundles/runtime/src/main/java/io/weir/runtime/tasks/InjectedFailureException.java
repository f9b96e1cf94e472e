package io.weir.runtime.tasks;

/**
 * The failure {@code debug.inject-failure.*} makes subtask 0 of the named operator throw, once, in
 * the job's first execution attempt (docs/configuration.md, "Testing aids"). Public so that the
 * engine can tell an injected failure from a real one when it reports whether the injection fired.
 */
public final class InjectedFailureException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message names the operator, the subtask, and the records and checkpoints it had seen */
    public InjectedFailureException(String message) {
        super(message);
    }

    /** @return whether {@code t} or one of its causes is an injected failure */
    public static boolean isInjected(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof InjectedFailureException) {
                return true;
            }
        }
        return false;
    }
}
