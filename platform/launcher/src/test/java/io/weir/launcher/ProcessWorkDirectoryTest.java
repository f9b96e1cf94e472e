package io.weir.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Per-process work directories under {@code <home>/work}: what a new run cleans up, and what it leaves alone. */
class ProcessWorkDirectoryTest {
    @TempDir
    Path home;

    @Test
    void deletesTheDirectoriesOfDeadProcessesAndKeepsThoseOfLiveOnes() throws Exception {
        Process dead = new ProcessBuilder("true").start();
        assertThat(dead.waitFor(30, TimeUnit.SECONDS)).isTrue();
        Process live = new ProcessBuilder("sleep", "60").start();
        try {
            Path stale = home.resolve("work/run-" + dead.pid());
            Files.createDirectories(stale.resolve("felix/bundle3"));
            Files.writeString(stale.resolve("felix/bundle3/bundle.info"), "x");
            Path busy = home.resolve("work/run-" + live.pid());
            Files.createDirectories(busy.resolve("fileinstall"));
            Path unrelated = Files.createDirectories(home.resolve("work/notes"));

            ProcessWorkDirectory work = ProcessWorkDirectory.create(home);

            assertThat(stale).doesNotExist();
            assertThat(busy).isDirectory();
            assertThat(unrelated).isDirectory();
            assertThat(work.path()).isEqualTo(home.resolve("work/run-" + ProcessHandle.current().pid())).isEmptyDirectory();
            assertThat(work.frameworkStorage().getParent()).isEqualTo(work.path());
            assertThat(work.fileInstallTemp().getParent()).isEqualTo(work.path());
        } finally {
            live.destroyForcibly();
        }
    }

    @Test
    void deleteRemovesEverythingTheRunLeft() throws Exception {
        ProcessWorkDirectory work = ProcessWorkDirectory.create(home);
        Files.createDirectories(work.fileInstallTemp().resolve("fileinstall-123"));
        Files.createDirectories(work.frameworkStorage().resolve("bundle1"));

        work.delete();
        work.delete();

        assertThat(home.resolve("work")).isEmptyDirectory();
    }
}
