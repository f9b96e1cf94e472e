package io.weir.benchmarks;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Files the benchmarks leave behind: one way to remove their temporary directories. */
public final class BenchmarkFiles {
    private static final Logger LOG = LoggerFactory.getLogger(BenchmarkFiles.class);

    private BenchmarkFiles() {
    }

    /**
     * Deletes {@code dir} and everything under it, children first. Best effort: a benchmark's result does not depend on
     * its clean-up, so a failure is logged (WARN, naming the directory) and not thrown.
     *
     * @param dir a directory or file (a missing one is logged like any other failure)
     */
    public static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot delete " + p, e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("Could not delete {}: {}", dir, e.getMessage());
        }
    }
}
