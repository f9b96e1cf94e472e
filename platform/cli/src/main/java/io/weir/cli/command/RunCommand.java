package io.weir.cli.command;

import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.Engine;
import io.weir.core.engine.JobHandle;
import io.weir.core.engine.JobResult;
import io.weir.core.engine.JobStatus;
import io.weir.core.job.InvalidJobException;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobSpecParser;
import io.weir.core.job.JobVertex;
import io.weir.core.plugin.PluginRegistry;
import jakarta.json.spi.JsonProvider;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code weir run JOB.json}: validates the job, runs it to its end on the local engine and prints
 * its progress ({@link ConsoleJobListener}) and the per-subtask table of the last completed
 * checkpoint ({@link CheckpointTable}).
 *
 * <p>Exit codes ({@link ExitCodes}): 0 the job FINISHED; 1 it FAILED or was CANCELED; 2 the job
 * file is unreadable or invalid, or the engine refused it (nothing started); 130 interrupted (the
 * calling thread was interrupted, e.g. by the launcher's Ctrl-C hook): the job is cancelled first.
 *
 * <p>Not thread-safe: one instance per command invocation, used by the calling thread.
 */
public final class RunCommand {
    /** How long to wait for the job to acknowledge a cancel after Ctrl-C, in ms. */
    static final long CANCEL_WAIT_MS = 10_000;

    private final Engine engine;
    private final PluginRegistry plugins;
    private final JsonProvider json;
    private final PluginAvailability availability;
    private final Duration pluginWait;
    private final PrintStream out;
    private final PrintStream err;

    /**
     * @param engine runs the job
     * @param plugins the installed plugins, for the parser
     * @param json JSON-P provider for the parser
     * @param availability waits for plugins still being installed
     * @param pluginWait the longest wait for plugin types the job names (about 10 s)
     * @param out progress lines and the final table
     * @param err error messages ({@code error: ...})
     */
    public RunCommand(Engine engine, PluginRegistry plugins, JsonProvider json, PluginAvailability availability,
            Duration pluginWait, PrintStream out, PrintStream err) {
        this.engine = engine;
        this.plugins = plugins;
        this.json = json;
        this.availability = availability;
        this.pluginWait = pluginWait;
        this.out = out;
        this.err = err;
    }

    /**
     * @param jobFile the job file; relative paths inside it resolve against its directory
     * @param overrides {@code --set} configuration, applied after the file's {@code config}
     * @return the exit code, see the class Javadoc
     */
    public int run(Path jobFile, Map<String, String> overrides) {
        Path file = jobFile.toAbsolutePath().normalize();
        String text;
        try {
            text = Files.readString(file);
            if (text.startsWith("\uFEFF")) {
                text = text.substring(1); // a UTF-8 byte order mark, as some editors write; not part of the JSON
            }
        } catch (java.nio.charset.CharacterCodingException e) {
            err.println("error: job file " + file + " is not UTF-8 text; a job file is a JSON object (see docs/job-format.md)");
            return ExitCodes.USAGE;
        } catch (IOException e) {
            err.println("error: cannot read job file " + file + ": " + e);
            return ExitCodes.USAGE;
        }
        JobGraph job;
        try {
            availability.await(JobTypes.named(text, json), pluginWait);
            job = new JobSpecParser(plugins, json).parse(text, file.getParent(), overrides);
        } catch (InvalidJobException e) {
            // an error in a --set value is not in the job file
            err.println("error: " + e.getMessage() + (e.getMessage().startsWith("--set ") ? "" : " (in " + file + ")"));
            return ExitCodes.USAGE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("Interrupted before job " + file + " was submitted");
            return ExitCodes.INTERRUPTED;
        }

        ConsoleJobListener listener = new ConsoleJobListener(job.name(), out);
        JobHandle handle;
        try {
            handle = engine.submit(job, listener);
        } catch (IllegalArgumentException e) {
            err.println("error: cannot submit job " + job.name() + ": " + e.getMessage());
            return ExitCodes.USAGE;
        }
        int subtasks = job.vertices().stream().mapToInt(JobVertex::parallelism).sum();
        out.println("Submitted job " + job.name() + " (" + job.vertices().size() + " operators, " + subtasks
                + " subtasks) from " + file);
        long start = System.nanoTime();

        JobResult result;
        boolean interrupted = false;
        try {
            result = handle.result().get();
        } catch (InterruptedException e) {
            interrupted = true;
            out.println("Cancelling job " + job.name() + " ...");
            handle.cancel();
            result = awaitAfterCancel(handle);
        } catch (ExecutionException e) {
            // JobHandle.result() never completes exceptionally; if it does, that is an engine bug
            result = new JobResult(job.name(), JobStatus.FAILED, e.getCause(), 0, null);
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        printSummary(job, listener, result, tookMs, interrupted);
        if (interrupted) {
            Thread.currentThread().interrupt();
            return ExitCodes.INTERRUPTED;
        }
        return result != null && result.status() == JobStatus.FINISHED ? ExitCodes.OK : ExitCodes.JOB_FAILED;
    }

    private JobResult awaitAfterCancel(JobHandle handle) {
        try {
            return handle.result().get(CANCEL_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException | TimeoutException e) {
            return null;
        }
    }

    private void printSummary(JobGraph job, ConsoleJobListener listener, JobResult result, long tookMs, boolean cancelledByUser) {
        CompletedCheckpointStats last = result != null && result.lastCheckpoint() != null ? result.lastCheckpoint() : listener.lastCompleted();
        if (last != null) {
            List<String> order = job.vertices().stream().map(JobVertex::id).toList();
            out.println();
            out.print(CheckpointTable.format(last, order));
        }
        if (result == null) {
            err.println("error: job " + job.name() + " did not stop within " + CANCEL_WAIT_MS + " ms of being cancelled");
            return;
        }
        String summary = "Job " + job.name() + " " + result.status() + " after " + tookMs + " ms: "
                + count(listener.completedCount(), "checkpoint") + " completed, " + count(result.restarts(), "restart");
        out.println(summary);
        if (result.status() != JobStatus.FINISHED && !cancelledByUser) {
            err.println("error: job " + job.name() + " " + result.status()
                    + (result.failure() == null ? "" : ": " + describe(result.failure())));
        }
    }

    /**
     * The failure and its causes on one line; a plain {@code Exception} is shown by its message only, and a
     * cause whose message the line already holds (wrappers repeat it) is left out.
     */
    static String describe(Throwable t) {
        boolean messageOnly = (t.getClass() == Exception.class || t instanceof io.weir.api.SuppressRestartsException)
                && t.getMessage() != null;
        StringBuilder sb = new StringBuilder(messageOnly ? t.getMessage() : String.valueOf(t));
        for (Throwable c = t.getCause(); c != null && c != t; c = c.getCause()) {
            if (c.getMessage() == null || !sb.toString().contains(c.getMessage())) {
                sb.append("; caused by ").append(c);
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return sb.toString();
    }

    /** @return {@code "1 checkpoint"}, {@code "2 checkpoints"}: the count and the noun, plural unless the count is 1 */
    static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }
}
