package io.weir.coordinator;

import io.weir.core.coordination.MasterHook;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Snapshots the master hooks of a checkpoint (PROTOCOL.md §2: operator coordinators and master
 * hooks before any task is triggered). Stateless.
 */
final class MasterHookSnapshotter {
    private MasterHookSnapshotter() {
    }

    /**
     * Calls every hook (synchronously, on the caller's thread) and combines their futures.
     *
     * @return completes with hook id → state bytes when every hook's future completed; completes
     *         exceptionally, naming the hook, job and checkpoint, as soon as one hook throws or its
     *         future fails; never completes if a hook's future never does (the checkpoint's timeout
     *         covers that)
     */
    static CompletableFuture<Map<String, byte[]>> snapshot(List<MasterHook> hooks, String jobName, long checkpointId,
            long timestamp) {
        Map<String, CompletableFuture<byte[]>> futures = new LinkedHashMap<>();
        CompletableFuture<Map<String, byte[]>> result = new CompletableFuture<>();
        for (MasterHook hook : hooks) {
            CompletableFuture<byte[]> f;
            try {
                f = hook.triggerCheckpoint(checkpointId, timestamp);
                if (f == null) {
                    throw new NullPointerException("triggerCheckpoint returned null");
                }
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            String hookId = hook.id();
            futures.put(hookId, f.handle((bytes, error) -> {
                if (error != null) {
                    result.completeExceptionally(new IllegalStateException("master hook '" + hookId + "' of job "
                            + jobName + " failed for checkpoint " + checkpointId, unwrap(error)));
                }
                return bytes;
            }));
        }
        CompletableFuture.allOf(futures.values().toArray(CompletableFuture[]::new)).thenRun(() -> {
            Map<String, byte[]> states = new LinkedHashMap<>();
            futures.forEach((id, f) -> {
                byte[] bytes = f.join();
                if (bytes != null) {
                    states.put(id, bytes);
                }
            });
            result.complete(states);
        });
        return result;
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
    }
}
