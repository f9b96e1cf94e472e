package io.weir.storage.fs;

import io.weir.core.storage.CheckpointStorage.RunLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The run lock ({@link FsCheckpointStorage#lockRun()}): one run of a job at a time per checkpoint
 * directory, within one process and across processes, released by {@link RunLock#close()} or by the
 * holder's death.
 */
class FsRunLockTest {
    @TempDir
    Path base;

    private final List<RunLock> held = new ArrayList<>();
    private Process child;

    @AfterEach
    void release() {
        held.forEach(RunLock::close);
        if (child != null) {
            child.destroyForcibly();
        }
    }

    private RunLock lock(String job) throws IOException {
        RunLock lock = new FsCheckpointStorage(base, job).lockRun();
        held.add(lock);
        return lock;
    }

    @Test
    void secondRunInTheSameProcessIsRefusedUntilTheFirstReleases() throws IOException {
        RunLock first = lock("job");
        long pid = ProcessHandle.current().pid();
        assertThatThrownBy(() -> lock("job")).isInstanceOf(IOException.class)
                .hasMessageContaining("job job is already running in this process (pid " + pid)
                .hasMessageContaining(base.toRealPath().resolve("job").resolve(FsRunLock.LOCK_FILE).toString());
        assertThat(Files.readString(base.resolve("job").resolve(FsRunLock.LOCK_FILE))).contains("pid=" + pid + "\n", "job=job\n");

        first.close();
        first.close(); // idempotent
        assertThat(base.resolve("job").resolve(FsRunLock.LOCK_FILE)).as("the lock file stays, emptied").isEmptyFile();
        lock("job");
    }

    @Test
    void differentJobsDoNotShareALock() throws IOException {
        lock("a");
        lock("b");
        assertThat(held).hasSize(2);
    }

    @Test
    void aRunInAnotherProcessIsNamedByPidAndItsDeathReleasesTheLock() throws Exception {
        child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), RunLockHolder.class.getName(), base.toString(), "job")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null && !line.equals(RunLockHolder.LOCKED)) {
            // skip anything else the child prints
        }
        assertThat(line).as("the child process took the lock").isEqualTo(RunLockHolder.LOCKED);

        assertThatThrownBy(() -> lock("job")).isInstanceOf(IOException.class)
                .hasMessageContaining("job job is already running: process " + child.pid() + " (started ")
                .hasMessageContaining("holds the lock file")
                .hasMessageContaining("Wait for that run to end or stop it");
        assertThat(held).isEmpty();

        child.destroyForcibly(); // SIGKILL: no chance to release; the OS does
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        lock("job");
        assertThat(Files.readString(base.resolve("job").resolve(FsRunLock.LOCK_FILE)))
                .contains("pid=" + ProcessHandle.current().pid() + "\n");
    }
}
