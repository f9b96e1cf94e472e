package io.weir.runtime.io.network;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When {@link BufferPool} wakes a backpressured producer (once a quarter of the pool is free again, not per buffer), and
 * which overdraft buffers it reuses.
 */
class BufferPoolTest {

    @Test
    void anExhaustedPoolOfEightNotifiesOnceWhenTheSecondBufferComesBack() {
        BufferPool pool = new BufferPool(64, 8);
        AtomicInteger wakeUps = new AtomicInteger();
        pool.addAvailabilityListener(wakeUps::incrementAndGet);
        List<NetworkBuffer> taken = new ArrayList<>();
        while (pool.isAvailable()) {
            taken.add(pool.request());
        }
        assertThat(taken).hasSize(8);

        taken.get(0).recycle();
        assertThat(pool.isAvailable()).as("one buffer free").isTrue();
        assertThat(wakeUps.get()).as("wake-ups after the first buffer came back").isZero();
        taken.get(1).recycle();
        assertThat(wakeUps.get()).as("wake-ups after the second").isEqualTo(1);
        for (NetworkBuffer b : taken.subList(2, 8)) {
            b.recycle();
        }
        assertThat(wakeUps.get()).as("wake-ups once the pool is full again").isEqualTo(1);
    }

    @Test
    void overdraftsDelayTheWakeUpUntilTheyAreRecycledToo() {
        BufferPool pool = new BufferPool(64, 4); // wakes at 1 free buffer
        AtomicInteger wakeUps = new AtomicInteger();
        pool.addAvailabilityListener(wakeUps::incrementAndGet);
        List<NetworkBuffer> taken = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            taken.add(pool.request());
        }
        taken.add(pool.requestOverdraft(10));
        taken.add(pool.requestOverdraft(10));

        taken.get(0).recycle();
        taken.get(1).recycle();
        assertThat(pool.isAvailable()).isFalse();
        assertThat(wakeUps.get()).isZero();
        taken.get(4).recycle();
        assertThat(pool.isAvailable()).isTrue();
        assertThat(wakeUps.get()).isEqualTo(1);
    }

    @Test
    void aFreedBufferAfterThePoolRefilledAndEmptiedAgainWakesAgain() {
        BufferPool pool = new BufferPool(64, 1);
        AtomicInteger wakeUps = new AtomicInteger();
        pool.addAvailabilityListener(wakeUps::incrementAndGet);
        for (int round = 1; round <= 3; round++) {
            NetworkBuffer b = pool.request();
            assertThat(pool.isAvailable()).isFalse();
            b.recycle();
            assertThat(wakeUps.get()).as("round %d", round).isEqualTo(round);
        }
    }

    @Test
    void aRecycledBufferSizedOverdraftIsHandedOutAgainByTheNextOverdraft() {
        BufferPool pool = new BufferPool(64, 1);
        NetworkBuffer pooled = pool.request();
        NetworkBuffer first = pool.requestOverdraft(10);
        byte[] segment = first.segment();
        first.recycle();

        NetworkBuffer second = pool.requestOverdraft(64);
        assertThat(second.segment()).as("the recycled overdraft's segment").isSameAs(segment);
        assertThat(second.size()).isZero();
        assertThat(pool.isAvailable()).as("the reused overdraft still counts against the pool").isFalse();
        second.recycle();
        pooled.recycle();
        assertThat(pool.isAvailable()).isTrue();
        assertThat(pool.inUse()).as("overdrafts never join the pool's own buffers").isZero();
    }

    @Test
    void oversizedOverdraftsAndThoseBeyondTheSpareLimitAreNotKept() {
        BufferPool pool = new BufferPool(64, 1);
        NetworkBuffer big = pool.requestOverdraft(100);
        assertThat(big.capacity()).isEqualTo(100);
        big.recycle();
        assertThat(pool.requestOverdraft(10).segment()).as("a buffer-sized request does not get the 100-byte one")
                .isNotSameAs(big.segment()).hasSize(64);

        List<NetworkBuffer> taken = new ArrayList<>();
        for (int i = 0; i < BufferPool.MAX_SPARE_OVERDRAFTS + 2; i++) {
            taken.add(pool.requestOverdraft(64));
        }
        java.util.Set<byte[]> recycled = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (NetworkBuffer b : taken) {
            recycled.add(b.segment());
            b.recycle();
        }
        List<byte[]> again = new ArrayList<>();
        for (int i = 0; i < BufferPool.MAX_SPARE_OVERDRAFTS + 2; i++) {
            again.add(pool.requestOverdraft(64).segment());
        }
        assertThat(again.stream().filter(recycled::contains).count()).as("overdrafts reused")
                .isEqualTo(BufferPool.MAX_SPARE_OVERDRAFTS);
    }
}
