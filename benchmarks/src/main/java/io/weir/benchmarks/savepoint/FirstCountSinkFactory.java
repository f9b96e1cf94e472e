package io.weir.benchmarks.savepoint;

import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.sink.TwoPhaseCommittingSink;
import io.weir.benchmarks.NoTransactionSink;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The benchmark-only {@code first-count-sink}: of the {@code (key, count)} rows of a keyed count, keeps the
 * first {@code count} seen per key since {@link #reset}, the time of the first row and the number of keys
 * seen. After a restore, the first count of key k must be its count at the savepoint + 1. Rows are looked
 * at when written, not when committed. Registered by hand; thread-safe (atomics shared by all subtasks).
 */
public final class FirstCountSinkFactory implements SinkFactory {
    /** The type name in job files. */
    public static final String TYPE = "first-count-sink";

    private final int keys;
    /** Per key: the first count seen, 0 until then (counts start at 1). Replaced by {@link #reset}. */
    private volatile AtomicLongArray firstCount;
    private final AtomicInteger keysSeen = new AtomicInteger();
    private final AtomicLong firstRowNanos = new AtomicLong();
    private final AtomicLong rows = new AtomicLong();
    /** Counted down when the last key is first seen; replaced by {@link #reset}. */
    private volatile CountDownLatch allKeys;

    /** @param keys keys 0..keys-1 the rows carry */
    public FirstCountSinkFactory(int keys) {
        this.keys = keys;
        reset();
    }

    /** Forgets everything seen; harness only, while no job with this sink runs. */
    public void reset() {
        firstCount = new AtomicLongArray(keys);
        keysSeen.set(0);
        firstRowNanos.set(0);
        rows.set(0);
        allKeys = new CountDownLatch(1);
    }

    /**
     * Waits until every key has been seen since {@link #reset}.
     *
     * @return whether they all were within {@code timeout}
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitAllKeys(long timeout, TimeUnit unit) throws InterruptedException {
        return allKeys.await(timeout, unit);
    }

    /** @return distinct keys seen since {@link #reset} */
    public int keysSeen() {
        return keysSeen.get();
    }

    /** @return rows written since {@link #reset} */
    public long rows() {
        return rows.get();
    }

    /** @return {@link System#nanoTime()} of the first row since {@link #reset}, or 0 if none yet */
    public long firstRowNanos() {
        return firstRowNanos.get();
    }

    /** @return the first count seen for {@code key} since {@link #reset}, or 0 */
    public long firstCount(int key) {
        return firstCount.get(key);
    }

    @Override
    public String type() {
        return TYPE;
    }

    /** @throws IllegalArgumentException if the input lacks a {@code key} or {@code count} field */
    @Override
    public void validate(PluginConfig config, Schema input) {
        input.require("key");
        input.require("count");
    }

    @Override
    public TwoPhaseCommittingSink<Long> create(PluginConfig config, Schema input) {
        return new Sink(input.require("key"), input.require("count"));
    }

    /** One subtask; task thread only, except the shared atomics. */
    private final class Sink extends NoTransactionSink {
        private final int keyField;
        private final int countField;

        Sink(int keyField, int countField) {
            this.keyField = keyField;
            this.countField = countField;
        }

        @Override
        public void write(Long transaction, Row row) {
            if (rows.getAndIncrement() == 0) {
                firstRowNanos.compareAndSet(0, System.nanoTime());
            }
            int key = (int) row.getLong(keyField);
            if (firstCount.compareAndSet(key, 0, row.getLong(countField))) {
                if (keysSeen.incrementAndGet() == keys) {
                    allKeys.countDown();
                }
            }
        }
    }
}
