package io.weir.distribution;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/** What the distribution ITs share: killing a {@code bin/weir} process tree, describing it, reading committed output. */
final class WeirProcesses {
    private WeirProcesses() {
    }

    /** SIGKILL ({@link Process#destroyForcibly()} on Linux) to the process and its descendants; waits up to 10 s for all to end. */
    static void killWithDescendants(Process p) throws InterruptedException {
        List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
        all.forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        all.add(p.toHandle());
        for (ProcessHandle h : all) {
            try {
                h.onExit().get(10, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                throw new AssertionError("process " + h.pid() + " did not die within 10 s of SIGKILL", e);
            }
        }
    }

    static String describe(Process p, Path stdout, Path stderr) throws IOException {
        return (p.isAlive() ? "running" : "exit " + p.exitValue()) + "\n--- stdout ---\n" + Files.readString(stdout, StandardCharsets.UTF_8)
                + "\n--- stderr ---\n" + Files.readString(stderr, StandardCharsets.UTF_8);
    }

    /** Committed (visible) sink files: {@code part-*.jsonl}. */
    static List<Path> committedFiles(Path out) throws IOException {
        if (!Files.isDirectory(out)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(out)) {
            return files.filter(p -> p.getFileName().toString().startsWith("part-") && p.getFileName().toString().endsWith(".jsonl"))
                    .sorted().toList();
        }
    }

    /** Every row of every committed file, parsed. */
    static List<JsonObject> rows(Path out) throws IOException {
        List<JsonObject> rows = new ArrayList<>();
        for (Path file : committedFiles(out)) {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.isBlank()) {
                    continue;
                }
                try (JsonReader r = Json.createReader(new StringReader(line))) {
                    rows.add(r.readObject());
                }
            }
        }
        return rows;
    }
}
