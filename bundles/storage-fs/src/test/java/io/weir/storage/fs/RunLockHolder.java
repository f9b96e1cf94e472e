package io.weir.storage.fs;

import io.weir.core.storage.CheckpointStorage;

import java.nio.file.Path;

/**
 * A separate process for {@link FsRunLockTest}: takes the run lock of job {@code args[1]} under
 * {@code args[0]}, prints {@value #LOCKED} and holds it until its standard input ends (or it is killed).
 */
public final class RunLockHolder {
    /** Printed once the lock is held. */
    public static final String LOCKED = "LOCKED";

    private RunLockHolder() {
    }

    /** @param args checkpoint base directory, job name */
    public static void main(String[] args) throws Exception {
        CheckpointStorage.RunLock lock = new FsCheckpointStorage(Path.of(args[0]), args[1]).lockRun();
        System.out.println(LOCKED);
        System.out.flush();
        while (System.in.read() != -1) {
            // hold the lock until stdin closes
        }
        lock.close();
    }
}
