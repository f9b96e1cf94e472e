package io.weir.api.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.serialization.Serializers;
import io.weir.api.state.ListState;
import io.weir.api.state.StateDescriptor;
import io.weir.api.state.ValueState;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InMemoryOperatorContextTest {
    @Test
    void operatorListStateSurvivesSnapshotAndRestore() {
        InMemoryOperatorContext context = InMemoryOperatorContext.fresh(1, 3);
        ListState<Long> offsets = context.operatorState().getListState("offsets", Serializers.LONG);
        offsets.update(List.of(4L, 9L));
        Map<String, byte[]> checkpoint = context.snapshotOperatorState();
        offsets.add(12L); // after the checkpoint: lost on restore

        InMemoryOperatorContext restored = InMemoryOperatorContext.restored(1, 3, checkpoint);

        assertThat(context.isRestored()).isFalse();
        assertThat(restored.isRestored()).isTrue();
        assertThat(restored.operatorState().getListState("offsets", Serializers.LONG).get()).containsExactly(4L, 9L);
        assertThat(restored.operatorState().getListState("other", Serializers.LONG).get()).isEmpty();
    }

    @Test
    void keyedValueStateIsScopedToTheCurrentKeyAndSurvivesRestore() {
        InMemoryOperatorContext context = InMemoryOperatorContext.keyed();
        ValueState<Long> count = context.keyedState().getState(new StateDescriptor.Value<>("count", Serializers.LONG));
        context.setCurrentKey("a");
        count.update(1L);
        context.setCurrentKey("b");
        count.update(5L);
        context.setCurrentKey("a");
        assertThat(count.value()).isEqualTo(1L);

        InMemoryOperatorContext restored = InMemoryOperatorContext.keyedRestoredFrom(context.snapshotKeyedState());
        count.update(2L); // after the checkpoint: not in the restored state
        ValueState<Long> restoredCount =
                restored.keyedState().getState(new StateDescriptor.Value<>("count", Serializers.LONG));
        restored.setCurrentKey("a");
        assertThat(restoredCount.value()).isEqualTo(1L);
        restored.setCurrentKey("b");
        assertThat(restoredCount.value()).isEqualTo(5L);
        restoredCount.clear();
        assertThat(restoredCount.value()).isNull();
        assertThat(restored.isRestored()).isTrue();
    }

    @Test
    void notKeyedContextRejectsKeyedState() {
        InMemoryOperatorContext context = InMemoryOperatorContext.fresh(0, 1);

        assertThatThrownBy(context::keyedState).isInstanceOf(IllegalStateException.class).hasMessageContaining("not keyed");
    }

    @Test
    void subtaskOutsideParallelismIsRejected() {
        assertThatThrownBy(() -> InMemoryOperatorContext.fresh(2, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("subtask 2 of parallelism 2");
    }
}
