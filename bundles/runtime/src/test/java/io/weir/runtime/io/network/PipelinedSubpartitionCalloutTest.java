package io.weir.runtime.io.network;

import io.weir.core.checkpoint.CheckpointAlignment;
import io.weir.core.checkpoint.CheckpointBarrier;
import io.weir.core.checkpoint.CheckpointOptions;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No callout under the channel lock: every future {@link PipelinedSubpartition} completes and every
 * notifier it calls runs after the subpartition's monitor is released, so a checkpoint's dependent
 * action (async part, decline) or the consumer's wake-up never runs while holding it.
 */
class PipelinedSubpartitionCalloutTest {
    private static final CheckpointOptions WITH_TIMEOUT = new CheckpointOptions(CheckpointAlignment.ALIGNED_WITH_TIMEOUT, 50, false);

    private final PipelinedSubpartition sp = new PipelinedSubpartition(2);
    /** One entry per callout: whether the subpartition's monitor was held while it ran. */
    private final List<Boolean> lockHeld = new ArrayList<>();

    private void record(CompletableFuture<?> future) {
        future.whenComplete((value, failure) -> lockHeld.add(Thread.holdsLock(sp)));
    }

    @Test
    void barrierSupersedingAPendingAlignedWithTimeoutBarrierCompletesItsFutureOutsideTheLock() {
        CompletableFuture<List<byte[]>> first = sp.addBarrier(new CheckpointBarrier(1, 0, WITH_TIMEOUT));
        record(first);

        sp.addBarrier(new CheckpointBarrier(2, 0, WITH_TIMEOUT));

        assertThat(first).isCompletedWithValue(List.of());
        assertThat(lockHeld).containsExactly(false);
    }

    @Test
    void convertingAPendingBarrierToPriorityCompletesItsFutureOutsideTheLock() {
        CompletableFuture<List<byte[]>> overtaken = sp.addBarrier(new CheckpointBarrier(1, 0, WITH_TIMEOUT));
        record(overtaken);

        sp.convertToPriority(1);

        assertThat(overtaken).isCompleted();
        assertThat(lockHeld).containsExactly(false);
    }

    @Test
    void consumerTakingAPendingBarrierCompletesItsFutureOutsideTheLock() {
        CompletableFuture<List<byte[]>> overtaken = sp.addBarrier(new CheckpointBarrier(1, 0, WITH_TIMEOUT));
        record(overtaken);

        assertThat(sp.poll()).isInstanceOf(CheckpointBarrier.class);

        assertThat(overtaken).isCompletedWithValue(List.of());
        assertThat(lockHeld).containsExactly(false);
    }

    @Test
    void releasingTheChannelFailsThePendingFutureOutsideTheLock() {
        CompletableFuture<List<byte[]>> overtaken = sp.addBarrier(new CheckpointBarrier(1, 0, WITH_TIMEOUT));
        record(overtaken);

        sp.releaseAll();

        assertThat(overtaken).isCompletedExceptionally();
        assertThat(overtaken.handle((v, e) -> e)).isCompletedWithValueMatching(e -> e instanceof CancellationException);
        assertThat(lockHeld).containsExactly(false);
    }

    @Test
    void consumerAndPriorityNotifiersRunOutsideTheLock() {
        sp.setConsumerNotifier(() -> lockHeld.add(Thread.holdsLock(sp)));
        sp.setPriorityNotifier(() -> lockHeld.add(Thread.holdsLock(sp)));
        BufferPool pool = new BufferPool(64, 4);
        NetworkBuffer buffer = pool.request();
        buffer.setSize(8);

        sp.addBuffer(buffer); // consumer notifier: received turned non-empty
        sp.addBarrier(new CheckpointBarrier(1, 0, new CheckpointOptions(CheckpointAlignment.UNALIGNED, 0, false))); // priority notifier

        assertThat(lockHeld).hasSize(2).containsOnly(false);
    }
}
