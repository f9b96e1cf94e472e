package io.weir.launcher;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The scratch directory of one {@code weir} process: {@code <home>/work/run-<pid>/}, holding the OSGi
 * framework storage ({@code felix/}) and FileInstall's temporary files ({@code fileinstall/}).
 *
 * <p>Both used to go to the system temporary directory, where every run left an empty
 * {@code fileinstall-*} directory and every killed run its whole framework storage (issue 13: 120 MB after
 * 30 killed runs). Now they live under the distribution; {@link #create} first deletes the directories of
 * runs whose process is gone (killed, or crashed before {@link #delete}), and a clean stop deletes its own.
 * A directory whose pid was reused by an unrelated live process is kept until that process ends.
 *
 * <p>When {@code <home>/work} cannot be created (a read-only installation), the same layout is used under
 * {@code java.io.tmpdir/weir-work-<user>}.
 */
final class ProcessWorkDirectory {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessWorkDirectory.class);
    private static final String PREFIX = "run-";

    private final Path dir;

    private ProcessWorkDirectory(Path dir) {
        this.dir = dir;
    }

    /**
     * Deletes the work directories of dead processes under {@code <home>/work} and creates this process's.
     *
     * @param home the distribution's root
     * @return this process's work directory, created and empty
     * @throws LauncherException (exit 1) if neither {@code <home>/work} nor the fallback under
     *         {@code java.io.tmpdir} can be created
     */
    static ProcessWorkDirectory create(Path home) {
        Path root = home.resolve("work");
        try {
            Files.createDirectories(root);
        } catch (IOException e) {
            Path fallback = Path.of(System.getProperty("java.io.tmpdir"), "weir-work-" + System.getProperty("user.name"));
            LOG.debug("Cannot create {} ({}); using {}", root, e.toString(), fallback);
            root = fallback;
        }
        deleteStale(root);
        Path dir = root.resolve(PREFIX + ProcessHandle.current().pid());
        try {
            deleteRecursively(dir); // a dead process with our pid, not yet cleaned
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new LauncherException(ExitCodes.FAILED, "cannot create the work directory " + dir + ": " + e
                    + "; check that the directory is writable and the disk is not full", e);
        }
        return new ProcessWorkDirectory(dir);
    }

    /** @return the OSGi framework storage directory (created by Felix) */
    Path frameworkStorage() {
        return dir.resolve("felix");
    }

    /** @return the directory for FileInstall's temporary files (created by FileInstall) */
    Path fileInstallTemp() {
        return dir.resolve("fileinstall");
    }

    /** @return the directory itself, {@code <home>/work/run-<pid>} */
    Path path() {
        return dir;
    }

    /** Deletes this process's work directory; logs a warning when that fails. Idempotent. */
    void delete() {
        try {
            deleteRecursively(dir);
        } catch (IOException e) {
            LOG.warn("Could not delete the work directory {}: {}", dir, e.toString());
        }
    }

    private static void deleteStale(Path root) {
        try (DirectoryStream<Path> runs = Files.newDirectoryStream(root, PREFIX + "*")) {
            for (Path run : runs) {
                long pid;
                try {
                    pid = Long.parseLong(run.getFileName().toString().substring(PREFIX.length()));
                } catch (NumberFormatException e) {
                    continue;
                }
                if (pid != ProcessHandle.current().pid() && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    continue;
                }
                try {
                    deleteRecursively(run);
                    LOG.debug("Deleted the work directory {} of a process that is gone", run);
                } catch (IOException e) {
                    LOG.warn("Could not delete the stale work directory {}: {}", run, e.toString());
                }
            }
        } catch (IOException e) {
            LOG.warn("Could not list {} for stale work directories: {}", root, e.toString());
        }
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException exc) throws IOException {
                if (exc instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw exc;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
                if (exc != null && !(exc instanceof NoSuchFileException)) {
                    throw exc;
                }
                Files.deleteIfExists(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
