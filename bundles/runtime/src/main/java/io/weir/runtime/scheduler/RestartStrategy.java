package io.weir.runtime.scheduler;

/**
 * Fixed-delay restarts: up to {@code maxAttempts} restarts of all tasks, {@code delayMs} apart
 * ({@code restart-strategy.fixed-delay.*}). Job master thread only.
 */
final class RestartStrategy {
    private final int maxAttempts;
    private final long delayMs;
    /** Job master thread only. */
    private int restarts;

    RestartStrategy(int maxAttempts, long delayMs) {
        if (maxAttempts < 0 || delayMs < 0) {
            throw new IllegalArgumentException("restart attempts " + maxAttempts + " and delay " + delayMs + " ms must be >= 0");
        }
        this.maxAttempts = maxAttempts;
        this.delayMs = delayMs;
    }

    /** @return whether another restart is allowed; counts it if so */
    boolean tryRestart() {
        if (restarts >= maxAttempts) {
            return false;
        }
        restarts++;
        return true;
    }

    int restarts() {
        return restarts;
    }

    long delayMs() {
        return delayMs;
    }

    int maxAttempts() {
        return maxAttempts;
    }
}
