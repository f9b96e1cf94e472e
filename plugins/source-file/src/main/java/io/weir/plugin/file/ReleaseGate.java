package io.weir.plugin.file;

import io.weir.api.SuppressRestartsException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.function.LongSupplier;

/**
 * The {@code release-file} of a {@code file} source: a text file holding one whole number {@code N}, the count of
 * records (over all subtasks, as {@code limit}) the source may read so far. The source reads the records with index
 * {@code < N} and then waits, idle (checkpoints, savepoints and cancellation go on), until the file holds a larger
 * number or is deleted (no hold any more). It lets a test or a demo keep a job mid-stream whatever the machine's
 * speed, and let it go on step by step: an unbounded input whose end the user controls, over a bounded file.
 *
 * <p>Write the file atomically (write a temporary file, then move it over): an empty file (seen mid-write) counts as
 * "hold where you are". The file is read at most once per {@link #RECHECK_NANOS} while the source holds, never while
 * it reads below the released count. Confined to the source task's thread.
 */
final class ReleaseGate {
    /** How often a holding source reads the file again: 10 ms. */
    static final long RECHECK_NANOS = 10_000_000L;

    private final Path file;
    private final LongSupplier nanoClock;
    /** Records released so far (grows only); {@link Long#MAX_VALUE} once the file is gone. */
    private long released;
    private long lastReadNanos;
    private boolean everRead;

    /**
     * @param file the release file (need not exist: a missing file releases everything)
     * @param nanoClock monotonic nanoseconds ({@code System::nanoTime}; a test clock in tests)
     */
    ReleaseGate(Path file, LongSupplier nanoClock) {
        this.file = file;
        this.nanoClock = nanoClock;
    }

    /**
     * @param recordIndex 0-based index of the next record of the file (over all subtasks)
     * @return true if that record may be read now
     * @throws SuppressRestartsException if the file holds something other than one whole number >= 0, naming the
     *         file and its content (restarting would read the same content)
     * @throws IOException if the file exists but cannot be read, naming it
     */
    boolean mayRead(long recordIndex) throws IOException {
        if (recordIndex < released) {
            return true;
        }
        long now = nanoClock.getAsLong();
        if (everRead && now - lastReadNanos < RECHECK_NANOS) {
            return false;
        }
        everRead = true;
        lastReadNanos = now;
        released = Math.max(released, read());
        return recordIndex < released;
    }

    private long read() throws IOException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (NoSuchFileException gone) {
            return Long.MAX_VALUE;
        } catch (IOException e) {
            throw new IOException("file source: cannot read its release-file " + file + ": " + e.getMessage(), e);
        }
        if (text.isEmpty()) {
            return 0;
        }
        try {
            long n = Long.parseLong(text);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException notANumber) {
            // reported below
        }
        throw new SuppressRestartsException("file source: its release-file " + file + " holds '" + abbreviate(text)
                + "', not a whole number of records >= 0; write the number of records the source may read"
                + " (atomically: write a temporary file, then move it over), or delete the file to release all");
    }

    private static String abbreviate(String text) {
        return text.length() <= 40 ? text : text.substring(0, 40) + "…";
    }
}
