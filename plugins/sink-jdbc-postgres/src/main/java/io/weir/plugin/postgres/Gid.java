package io.weir.plugin.postgres;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The id of a prepared transaction ({@code PREPARE TRANSACTION 'gid'}):
 * {@code weir:<job>:<operator>:<subtask>:<checkpoint>:<run>}, where {@code run} is 8 hex digits chosen
 * at random by each sink instance, so that a transaction prepared by a run that failed before its
 * checkpoint completed never collides with one of the run that replaces it (checkpoint ids can repeat
 * after a restore). Everything up to the operator is the {@link #prefix} that identifies one sink of
 * one job; {@link #parse} reads the rest back. PostgreSQL allows at most {@value #MAX_BYTES} bytes.
 *
 * @param prefix {@code weir:<job>:<operator>:}
 * @param subtask the subtask that prepared it, {@code >= 0}
 * @param checkpointId the checkpoint whose barrier prepared it, {@code >= 0}
 * @param run the preparing instance's random tag, 8 lowercase hex digits
 */
public record Gid(String prefix, int subtask, long checkpointId, String run) {
    /** PostgreSQL's limit: a gid must be shorter than 200 bytes (GIDSIZE). */
    public static final int MAX_BYTES = 199;
    private static final Pattern REST = Pattern.compile("(\\d{1,9}):(\\d{1,19}):([0-9a-f]{8})");

    /** @throws IllegalArgumentException if a part is out of range or the gid would exceed {@value #MAX_BYTES} bytes */
    public Gid {
        if (subtask < 0 || checkpointId < 0 || run == null || !run.matches("[0-9a-f]{8}")) {
            throw new IllegalArgumentException("bad gid parts: subtask " + subtask + ", checkpoint " + checkpointId + ", run " + run);
        }
        int bytes = (prefix + subtask + ":" + checkpointId + ":" + run).getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_BYTES) {
            throw new IllegalArgumentException("gid " + prefix + subtask + ":" + checkpointId + ":" + run + " is " + bytes
                    + " bytes; PostgreSQL allows " + MAX_BYTES + ": use a shorter job name or operator id");
        }
    }

    /**
     * @return {@code weir:<job>:<operator>:}
     * @throws IllegalArgumentException if the job name contains ':' (job names cannot), or the prefix
     *         leaves no room for the rest of a gid within {@value #MAX_BYTES} bytes
     */
    public static String prefix(String jobName, String operatorId) {
        if (jobName.indexOf(':') >= 0) {
            throw new IllegalArgumentException("job name must not contain ':', got '" + jobName + "'");
        }
        String prefix = "weir:" + jobName + ":" + operatorId + ":";
        // the longest rest: a 9-digit subtask, a 19-digit checkpoint id, 8 hex digits and two ':'
        int longest = prefix.getBytes(StandardCharsets.UTF_8).length + 9 + 19 + 8 + 2;
        if (longest > MAX_BYTES) {
            throw new IllegalArgumentException("job name '" + jobName + "' and operator id '" + operatorId + "' are too long for"
                    + " a PostgreSQL prepared transaction id (" + longest + " of at most " + MAX_BYTES + " bytes):"
                    + " shorten them to at most " + (MAX_BYTES - 38 - 7) + " bytes together");
        }
        return prefix;
    }

    /**
     * @return the gid of sink {@code prefix} if {@code gid} is one ({@code prefix} followed by exactly
     *         subtask, checkpoint and run), else empty (another sink's, e.g. an operator whose id extends ours)
     */
    public static Optional<Gid> parse(String prefix, String gid) {
        if (!gid.startsWith(prefix)) {
            return Optional.empty();
        }
        Matcher m = REST.matcher(gid.substring(prefix.length()));
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new Gid(prefix, Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)), m.group(3)));
    }

    @Override
    public String toString() {
        return prefix + subtask + ":" + checkpointId + ":" + run;
    }
}
