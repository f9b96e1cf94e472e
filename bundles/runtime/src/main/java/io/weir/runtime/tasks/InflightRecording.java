package io.weir.runtime.tasks;

import io.weir.runtime.checkpoint.RecordedInput;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The input channel state of one unaligned checkpoint at one task (PROTOCOL.md §6): copies of the
 * buffers read, after the task's snapshot, from channels whose barrier had not arrived yet, kept
 * until each such channel delivers its barrier, and the bytes of every buffer the task read from any
 * channel meanwhile (the processed bytes of the checkpoint's stats). Task thread only;
 * {@link #future()} completes on it.
 */
final class InflightRecording {
    private final long checkpointId;
    private final Set<Integer> open = new HashSet<>();
    private final Map<Integer, List<byte[]>> data = new HashMap<>();
    private final CompletableFuture<RecordedInput> future = new CompletableFuture<>();
    /** Task thread only. */
    private boolean started;
    /** Task thread only. */
    private long processedBytes;

    InflightRecording(long checkpointId) {
        this.checkpointId = checkpointId;
    }

    long checkpointId() {
        return checkpointId;
    }

    CompletableFuture<RecordedInput> future() {
        return future;
    }

    /** Starts recording {@code channels} (may be empty: nothing was in flight). */
    void start(int[] channels) {
        started = true;
        for (int c : channels) {
            open.add(c);
        }
        completeIfDone();
    }

    /** Whether the handler has said which channels to record. */
    boolean isStarted() {
        return started;
    }

    /**
     * Records the unread rest of the buffer being deserialized at the snapshot: in flight whatever its
     * channel, and processed after the snapshot.
     */
    void addUnconsumed(int channel, byte[] rest) {
        processedBytes += rest.length;
        if (rest.length > 0) {
            data.computeIfAbsent(channel, k -> new ArrayList<>()).add(rest);
        }
    }

    /** Counts a buffer the task read from {@code channel}, and copies it if that channel is being recorded. */
    void onBuffer(int channel, byte[] segment, int size) {
        if (future.isDone()) {
            return;
        }
        processedBytes += size;
        if (open.contains(channel)) {
            data.computeIfAbsent(channel, k -> new ArrayList<>()).add(Arrays.copyOf(segment, size));
        }
    }

    /** {@code channel}'s barrier arrived. */
    void stop(int channel) {
        open.remove(channel);
        completeIfDone();
    }

    /** Abandons the recording (checkpoint aborted, task ended). */
    void abort(Throwable reason) {
        open.clear();
        future.completeExceptionally(reason);
    }

    boolean isDone() {
        return future.isDone();
    }

    private void completeIfDone() {
        if (started && open.isEmpty()) {
            future.complete(new RecordedInput(data, processedBytes));
        }
    }
}
