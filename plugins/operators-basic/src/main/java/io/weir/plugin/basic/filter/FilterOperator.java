package io.weir.plugin.basic.filter;

import io.weir.api.Row;
import io.weir.api.operator.Output;
import io.weir.api.operator.StreamOperator;
import io.weir.plugin.basic.RecordThrottle;

/** Forwards the rows that satisfy a {@link FilterCondition}, unchanged. Stateless; task thread only. */
public final class FilterOperator implements StreamOperator {
    private final FilterCondition condition;
    private final RecordThrottle throttle;

    /**
     * @param condition which rows pass
     * @param throttle pause per record
     */
    public FilterOperator(FilterCondition condition, RecordThrottle throttle) {
        this.condition = condition;
        this.throttle = throttle;
    }

    @Override
    public void processElement(Row row, Output out) {
        throttle.pause();
        if (condition.test(row)) {
            out.collect(row);
        }
    }
}
