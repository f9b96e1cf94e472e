package io.weir.runtime.scheduler;

/** One-line descriptions of failures for messages. Stateless. */
final class RunFailures {
    private RunFailures() {
    }

    /**
     * @return the messages of {@code t} and its causes joined by {@code ": "}, skipping wrappers
     *         ({@code CompletionException}, {@code ExecutionException}) and messages the line already holds
     */
    static String describe(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof java.util.concurrent.CompletionException || c instanceof java.util.concurrent.ExecutionException) {
                continue;
            }
            String m = c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
            if (!sb.toString().contains(m)) {
                sb.append(sb.length() == 0 ? "" : ": ").append(m);
            }
        }
        return sb.toString();
    }
}
