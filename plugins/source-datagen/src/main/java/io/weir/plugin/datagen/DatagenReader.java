package io.weir.plugin.datagen;

import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.operator.OperatorContext;
import io.weir.api.operator.Output;
import io.weir.api.serialization.Serializers;
import io.weir.api.source.PollStatus;
import io.weir.api.source.SourceReader;
import io.weir.api.state.ListState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.function.LongSupplier;

/**
 * Generates one subtask's share of a {@code datagen} source: rows
 * {@code (key = seq % keys, seq, ts = wall clock ms, payload)} where {@code seq} counts the rows this
 * subtask emitted (0, 1, 2, ...), so every subtask covers all keys evenly.
 *
 * <p>Share: subtask {@code i} of {@code p} generates {@code rate / p} records/s and
 * {@code limit / p} records (the first {@code limit % p} subtasks one more). With a rate, pollNext
 * never sleeps: it emits what is due ({@link RatePacer}) and otherwise returns
 * {@link PollStatus#NOTHING_AVAILABLE} with {@link #idleWaitNanos()} = time until the next record is
 * due. Each poll emits at most {@value #MAX_ROWS_PER_POLL} rows and at most
 * {@value #MAX_BYTES_PER_POLL} bytes of payload (about one network buffer), so a poll started
 * while the output still had a free buffer cannot flood it: the runtime checks for backpressure
 * only between polls.
 *
 * <p>Position: the number of rows emitted by this subtask, in operator list state
 * {@value #STATE_NAME} (one {@code Long}); a restore continues the sequence after it. The payload
 * is one shared byte array of {@code record-size} bytes (rows are immutable by contract). With up to
 * {@value #MAX_CACHED_KEYS} keys, the boxed key values are made once and shared by every row (beyond
 * {@code Long}'s own cache of -128..127 a row would otherwise box its key). When the output keeps no row
 * ({@link Output#retainsRows()} false: a network writer or an operator that keeps no input row), every row is one
 * {@link Row.Reusable} overwritten per emission, so a row costs only its boxed sequence number.
 *
 * <p>All methods run on the source task's thread; mutable fields are confined to it.
 */
public final class DatagenReader implements SourceReader {
    /** Name of the operator list state holding the number of emitted rows. */
    public static final String STATE_NAME = "offset";
    static final int MAX_ROWS_PER_POLL = 1024;
    static final int MAX_BYTES_PER_POLL = 32 * 1024;
    private static final long MIN_IDLE_NANOS = 10_000L;
    /** Most keys whose boxed values are kept (about 20 bytes each: 2.6 MB at the limit). */
    static final int MAX_CACHED_KEYS = 1 << 17;
    private static final Logger LOG = LoggerFactory.getLogger(DatagenReader.class);

    private final DatagenSettings settings;
    private final Schema schema;
    private final byte[] payload;
    private final LongSupplier nanoClock;
    private final LongSupplier wallClockMillis;
    private final int maxRowsPerPoll;
    /** {@code keyValues[k]} = k boxed, for every key, or null with more than {@link #MAX_CACHED_KEYS} keys. */
    private final Long[] keyValues;

    // Task thread only.
    private ListState<Long> offsetState;
    private RatePacer pacer;
    private long share;
    private long emitted;
    private long idleWaitNanos = 1_000_000L;
    /** The row overwritten for each emission when the output keeps no row; null until first needed. Task thread only. */
    private Row.Reusable reusable;

    /** @param settings the validated config; uses the system clocks */
    public DatagenReader(DatagenSettings settings) {
        this(settings, System::nanoTime, System::currentTimeMillis);
    }

    /**
     * @param settings the validated config
     * @param nanoClock monotonic time in ns (rate pacing)
     * @param wallClockMillis wall-clock time in ms since the epoch (the {@code ts} field)
     */
    DatagenReader(DatagenSettings settings, LongSupplier nanoClock, LongSupplier wallClockMillis) {
        this.settings = settings;
        this.schema = DatagenSettings.SCHEMA;
        this.payload = new byte[settings.recordSize()];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) ('a' + i % 26);
        }
        this.nanoClock = nanoClock;
        this.wallClockMillis = wallClockMillis;
        this.maxRowsPerPoll = Math.max(1, Math.min(MAX_ROWS_PER_POLL, MAX_BYTES_PER_POLL / Math.max(1, settings.recordSize())));
        if (settings.keys() <= MAX_CACHED_KEYS) {
            keyValues = new Long[(int) settings.keys()];
            for (int k = 0; k < keyValues.length; k++) {
                keyValues[k] = (long) k;
            }
        } else {
            keyValues = null;
        }
    }

    /**
     * Computes this subtask's share and restores the number of emitted rows.
     *
     * @throws IllegalStateException if restored state does not hold exactly one count (parallelism changed)
     */
    @Override
    public void initializeState(OperatorContext context) {
        int p = context.parallelism();
        int i = context.subtaskIndex();
        this.pacer = new RatePacer(settings.rate() / p);
        this.share = settings.limit().isPresent()
                ? settings.limit().getAsLong() / p + (i < settings.limit().getAsLong() % p ? 1 : 0)
                : Long.MAX_VALUE;
        this.offsetState = context.operatorState().getListState(STATE_NAME, Serializers.LONG);
        if (context.isRestored()) {
            List<Long> offsets = offsetState.get();
            if (offsets.size() != 1) {
                throw new IllegalStateException("datagen source " + context.operatorId() + " subtask " + i
                        + " of job " + context.jobName() + " restored " + offsets.size() + " offsets " + offsets
                        + " but needs exactly one: changing the parallelism of a datagen source is not supported");
            }
            emitted = offsets.get(0);
            LOG.info("Datagen source {} subtask {} resumes at seq {}", context.operatorId(), i, emitted);
        }
    }

    /**
     * Emits the rows that are due, up to {@value #MAX_ROWS_PER_POLL}.
     *
     * @return END_OF_INPUT once this subtask's share of the limit is emitted, NOTHING_AVAILABLE when
     *         the next row is not due yet, MORE_AVAILABLE otherwise
     */
    @Override
    public PollStatus pollNext(Output out) {
        if (emitted >= share) {
            return PollStatus.END_OF_INPUT;
        }
        long now = nanoClock.getAsLong();
        long n = Math.min(Math.min(pacer.permits(now), maxRowsPerPoll), share - emitted);
        if (n <= 0) {
            idleWaitNanos = Math.max(MIN_IDLE_NANOS, pacer.nanosUntilNext(now));
            return PollStatus.NOTHING_AVAILABLE;
        }
        Long ts = wallClockMillis.getAsLong(); // boxed once: every row of one poll shares it
        long keys = settings.keys();
        long key = emitted % keys; // then counted up: one division per poll, not per row
        Row.Reusable reuse = out.retainsRows() ? null : reusableRow().set(2, ts).set(3, payload); // same for the poll
        for (long j = 0; j < n; j++) {
            long seq = emitted + j;
            if (reuse != null) {
                out.collect(reuse.setLong(0, key).setLong(1, seq).row()); // unboxed: no Long per row
            } else {
                out.collect(new Row(schema, keyValues != null ? keyValues[(int) key] : Long.valueOf(key), seq, ts, payload));
            }
            if (++key == keys) {
                key = 0;
            }
        }
        emitted += n;
        pacer.emitted(n);
        return emitted >= share ? PollStatus.END_OF_INPUT : PollStatus.MORE_AVAILABLE;
    }

    /** @return the row emitted to outputs that keep no row ({@link Output#retainsRows()} false), created on first use */
    private Row.Reusable reusableRow() {
        if (reusable == null) {
            reusable = new Row.Reusable(schema);
        }
        return reusable;
    }

    /** @return ns until the next row is due, as computed by the last poll that found nothing to emit */
    @Override
    public long idleWaitNanos() {
        return idleWaitNanos;
    }

    /** Stores the number of rows emitted so far. */
    @Override
    public void snapshotState(long checkpointId) {
        offsetState.update(List.of(emitted));
    }
}
