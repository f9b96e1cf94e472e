package io.weir.runtime.scheduler;

import io.weir.core.checkpoint.CompletedCheckpoint;

import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A stop-with-savepoint under way in a {@link JobMaster}.
 *
 * @param directory the absolute target directory of the savepoint
 * @param drain whether sources end their input before the savepoint
 * @param attempt the execution attempt being stopped
 * @param result completed with the savepoint's directory once the job is FINISHED
 * @param savepoint completed with the savepoint once it completed (before the tasks end)
 */
record StopWithSavepoint(String directory, boolean drain, int attempt, CompletableFuture<Path> result,
        CompletableFuture<CompletedCheckpoint> savepoint) {
    StopWithSavepoint {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(savepoint, "savepoint");
    }

    StopWithSavepoint(String directory, boolean drain, int attempt, CompletableFuture<Path> result) {
        this(directory, drain, attempt, result, new CompletableFuture<>());
    }
}
