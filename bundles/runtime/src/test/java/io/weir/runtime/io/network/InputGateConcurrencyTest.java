package io.weir.runtime.io.network;

import io.weir.runtime.mailbox.TaskMailbox;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock-free data-available path of {@link InputGate}: producers on their own threads, the consumer polling and
 * waiting on a {@link TaskMailbox} as a task thread does.
 */
class InputGateConcurrencyTest {
    /** A wait this long means a notification was lost (the producers never pause that long). */
    private static final long LOST_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** One event of a producer: its channel and sequence number. */
    private record Seq(int channel, int n) {
    }

    @Test
    void everyEntryOfEveryChannelArrivesOnceInOrderAndNoNotificationIsLost() throws Exception {
        deliverConcurrently(3, 30_000);
    }

    /** Channels 64 and up are announced in a second word of bits. */
    @Test
    void noNotificationIsLostWithSeventyChannels() throws Exception {
        deliverConcurrently(70, 1_500);
    }

    /**
     * Data that arrives while the task thread is taking the announced channels (after it looked at the channel's bit)
     * is found by the next poll: the flag the producer sets again must not be cleared behind it.
     */
    @Test
    void dataAnnouncedWhileTheAnnouncedChannelsAreTakenIsFoundByTheNextPoll() {
        PipelinedSubpartition a = new PipelinedSubpartition(2);
        PipelinedSubpartition b = new PipelinedSubpartition(2);
        AtomicInteger takings = new AtomicInteger();
        InputGate gate = new InputGate(List.of(a, b), () -> {
            if (takings.incrementAndGet() == 1) {
                b.addEvent("b1"); // as a producer racing with the first taking
            }
        });
        AtomicInteger signals = new AtomicInteger();
        gate.setDataAvailableListener(signals::incrementAndGet);
        a.addEvent("a1");

        assertThat(gate.pollNext().entry()).isEqualTo("a1");
        InputGate.ChannelEntry e = gate.pollNext();

        assertThat(e).as("b1, announced during the first taking").isNotNull();
        assertThat(e.entry()).isEqualTo("b1");
        assertThat(e.channel()).isEqualTo(1);
        assertThat(signals.get()).as("wake-ups: a1, b1").isEqualTo(2);
    }

    /**
     * Each event is added only after the consumer took the one before, so every add turns the channel's queue
     * non-empty and is a notification the consumer may be about to miss (waiting, or just done looking); with one
     * channel no other channel's notification can cover a lost one.
     */
    @Test
    void aProducerThatWaitsForEachEventToBeTakenIsNeverLeftWithoutANotification() throws Exception {
        int events = 20_000;
        PipelinedSubpartition sp = new PipelinedSubpartition(2);
        InputGate gate = new InputGate(List.of(sp));
        TaskMailbox mailbox = new TaskMailbox();
        gate.setDataAvailableListener(mailbox::wakeUp);
        AtomicInteger taken = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread producer = new Thread(() -> {
            try {
                for (int n = 0; n < events; n++) {
                    while (taken.get() < n) {
                        Thread.onSpinWait();
                        if (Thread.interrupted()) {
                            return;
                        }
                    }
                    sp.addEvent(n);
                }
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "ping-pong-producer");
        producer.start();
        try {
            while (taken.get() < events) {
                InputGate.ChannelEntry e = gate.pollNext();
                if (e == null) {
                    long start = System.nanoTime();
                    mailbox.waitForMailOrSignal(LOST_NANOS);
                    assertThat(System.nanoTime() - start).as("wait for event %d (a full wait: its notification was lost)",
                            taken.get()).isLessThan(LOST_NANOS);
                    continue;
                }
                assertThat(e.entry()).isEqualTo(taken.get());
                taken.incrementAndGet();
            }
        } finally {
            producer.interrupt();
            producer.join();
        }
        assertThat(failure.get()).isNull();
        assertThat(gate.pollNext()).isNull();
    }

    /** {@code channels} producer threads add {@code perChannel} events each; the consumer polls and waits as a task. */
    private static void deliverConcurrently(int channels, int perChannel) throws Exception {
        List<PipelinedSubpartition> sps = new ArrayList<>();
        for (int c = 0; c < channels; c++) {
            sps.add(new PipelinedSubpartition(2));
        }
        InputGate gate = new InputGate(sps);
        TaskMailbox mailbox = new TaskMailbox();
        gate.setDataAvailableListener(mailbox::wakeUp);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> producers = new ArrayList<>();
        for (int c = 0; c < channels; c++) {
            int channel = c;
            Thread t = new Thread(() -> {
                try {
                    for (int n = 0; n < perChannel; n++) {
                        // events need no credit: each add notifies the gate when the channel's queue was empty
                        sps.get(channel).addEvent(new Seq(channel, n));
                        if (n % 64 == 0) {
                            Thread.yield();
                        }
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            }, "producer-" + c);
            producers.add(t);
        }
        int[] next = new int[channels];
        int received = 0;
        int fullTimeouts = 0;
        producers.forEach(Thread::start);
        try {
            while (received < channels * perChannel && failure.get() == null) {
                InputGate.ChannelEntry e = gate.pollNext();
                if (e == null) {
                    long start = System.nanoTime();
                    mailbox.waitForMailOrSignal(LOST_NANOS);
                    if (System.nanoTime() - start >= LOST_NANOS) {
                        fullTimeouts++;
                    }
                    continue;
                }
                Seq s = (Seq) e.entry();
                assertThat(s.channel()).as("entry of channel %d delivered through channel %d", s.channel(), e.channel())
                        .isEqualTo(e.channel());
                assertThat(s.n()).as("next entry of channel %d", s.channel()).isEqualTo(next[s.channel()]);
                next[s.channel()]++;
                received++;
            }
        } finally {
            for (Thread t : producers) {
                t.interrupt();
                t.join();
            }
        }
        assertThat(failure.get()).isNull();
        assertThat(received).isEqualTo(channels * perChannel);
        assertThat(fullTimeouts).as("waits that lost their notification").isZero();
        assertThat(gate.pollNext()).as("nothing left, no channel delivered twice").isNull();
    }

    @Test
    void channelsWithDataAreServedRoundRobin() {
        PipelinedSubpartition a = new PipelinedSubpartition(2);
        PipelinedSubpartition b = new PipelinedSubpartition(2);
        PipelinedSubpartition c = new PipelinedSubpartition(2);
        InputGate gate = new InputGate(List.of(a, b, c));
        for (int i = 0; i < 3; i++) {
            a.addEvent("a" + i);
            b.addEvent("b" + i);
        }
        c.addEvent("c0");
        List<Object> order = new ArrayList<>();
        for (InputGate.ChannelEntry e = gate.pollNext(); e != null; e = gate.pollNext()) {
            order.add(e.entry());
        }
        assertThat(order).containsExactly("a0", "b0", "c0", "a1", "b1", "a2", "b2");
    }

    @Test
    void aBlockedChannelIsSkippedAndItsDataReadAfterResume() {
        PipelinedSubpartition a = new PipelinedSubpartition(2);
        PipelinedSubpartition b = new PipelinedSubpartition(2);
        InputGate gate = new InputGate(List.of(a, b));
        AtomicInteger signals = new AtomicInteger();
        gate.setDataAvailableListener(signals::incrementAndGet);
        gate.block(0);
        a.addEvent("a1");
        b.addEvent("b1");
        assertThat(gate.pollNext().entry()).isEqualTo("b1");
        assertThat(gate.pollNext()).as("channel 0 is blocked").isNull();
        gate.resume(0);
        InputGate.ChannelEntry e = gate.pollNext();
        assertThat(e.channel()).isZero();
        assertThat(e.entry()).isEqualTo("a1");
        assertThat(signals.get()).isEqualTo(2);
    }
}
