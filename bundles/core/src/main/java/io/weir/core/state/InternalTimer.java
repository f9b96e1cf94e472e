package io.weir.core.state;

import io.weir.api.Row;

import java.util.Objects;

/**
 * One timer of a {@link KeyedTimerQueue}: a timestamp for a key.
 *
 * @param timestamp ms since the epoch
 * @param key the key fields, non-null
 * @param keyGroup the key's group ({@link KeyHashVersion#keyGroupFor})
 */
public record InternalTimer(long timestamp, Row key, int keyGroup) {
    /** @throws NullPointerException if key is null */
    public InternalTimer {
        Objects.requireNonNull(key, "key");
    }
}
