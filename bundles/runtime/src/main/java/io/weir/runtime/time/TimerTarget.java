package io.weir.runtime.time;

import io.weir.api.Row;
import io.weir.api.operator.TimeDomain;

/** What a fired timer calls: the operator's {@code onTimer} with its output. Task thread. */
@FunctionalInterface
public interface TimerTarget {
    /** @throws Exception fails the task */
    void onTimer(long timestamp, Row key, TimeDomain domain) throws Exception;
}
