package io.weir.plugin.file;

import io.weir.api.Row;
import io.weir.api.operator.OperatorContext;
import io.weir.api.operator.Output;
import io.weir.api.serialization.Serializers;
import io.weir.api.source.PollStatus;
import io.weir.api.source.SourceReader;
import io.weir.api.state.ListState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;

/**
 * Reads one subtask's share of a JSON file: with parallelism {@code p}, subtask {@code i} emits the
 * records whose 0-based index {@code n} satisfies {@code n % p == i} (and {@code n < limit}).
 *
 * <p>Position: the index of the next record of the file to look at (records emitted by this subtask
 * and records skipped for other subtasks), kept in operator list state {@value #STATE_NAME} as one
 * {@code Long} per subtask (PROTOCOL.md §1 step 2). On restore the reader re-reads the file and skips
 * that many records, so it continues with exactly the records after the checkpoint. Changing the
 * parallelism of a file source on restore is not supported: a subtask that does not get exactly one
 * offset fails with an {@link IllegalStateException}.
 *
 * <p>Each {@link #pollNext} emits up to {@value #MAX_ROWS_PER_POLL} rows (and looks at no more than
 * {@value #MAX_RECORDS_PER_POLL} records) so that mails stay timely. All methods run on the source
 * task's thread; the mutable fields are confined to it.
 */
public final class FileSourceReader implements SourceReader {
    /** Name of the operator list state holding the offset. */
    public static final String STATE_NAME = "offset";
    static final int MAX_ROWS_PER_POLL = 256;
    static final int MAX_RECORDS_PER_POLL = 4096;
    private static final Logger LOG = LoggerFactory.getLogger(FileSourceReader.class);

    private final FileSourceSettings settings;

    // Task thread only.
    private OperatorContext context;
    private ListState<Long> offsetState;
    private JsonRecordReader reader;
    /** Index of the next record of the file this subtask looks at; what {@link #snapshotState} stores. */
    private long nextIndex;
    private boolean ended;

    /** @param settings the validated config */
    public FileSourceReader(FileSourceSettings settings) {
        this.settings = settings;
    }

    /**
     * Registers the offset state and restores the position.
     *
     * @throws IllegalStateException if restored state does not hold exactly one offset (parallelism changed)
     */
    @Override
    public void initializeState(OperatorContext context) throws Exception {
        this.context = context;
        this.offsetState = context.operatorState().getListState(STATE_NAME, Serializers.LONG);
        if (context.isRestored()) {
            List<Long> offsets = offsetState.get();
            if (offsets.size() != 1) {
                throw new IllegalStateException("file source " + context.operatorId() + " subtask "
                        + context.subtaskIndex() + " of job " + context.jobName() + " restored " + offsets.size()
                        + " offsets " + offsets + " but needs exactly one: changing the parallelism of a file source"
                        + " is not supported");
            }
            nextIndex = offsets.get(0);
            LOG.info("File source {} subtask {} resumes {} at record {}", context.operatorId(),
                    context.subtaskIndex(), settings.path(), nextIndex);
        }
    }

    /**
     * Emits up to {@value #MAX_ROWS_PER_POLL} rows of this subtask's share.
     *
     * @return {@link PollStatus#END_OF_INPUT} once the file (or the limit) is exhausted, otherwise
     *         {@link PollStatus#MORE_AVAILABLE}
     * @throws MalformedRecordException on invalid JSON or a value of the wrong type in a record of this subtask
     * @throws IOException if the file cannot be read (e.g. it vanished), naming the file
     */
    @Override
    public PollStatus pollNext(Output out) throws Exception {
        if (ended) {
            return PollStatus.END_OF_INPUT;
        }
        if (reader == null) {
            open();
        }
        int parallelism = context.parallelism();
        int subtask = context.subtaskIndex();
        int emitted = 0;
        int looked = 0;
        while (emitted < MAX_ROWS_PER_POLL && looked < MAX_RECORDS_PER_POLL) {
            if (nextIndex >= settings.limit()) {
                return end();
            }
            if (nextIndex % parallelism == subtask) {
                Row row = reader.next();
                if (row == null) {
                    return end();
                }
                out.collect(row);
                emitted++;
            } else if (!reader.skip()) {
                return end();
            }
            nextIndex++;
            looked++;
        }
        return PollStatus.MORE_AVAILABLE;
    }

    /** Stores the index of the next record into the offset state. */
    @Override
    public void snapshotState(long checkpointId) {
        offsetState.update(List.of(nextIndex));
    }

    @Override
    public void close() throws Exception {
        closeReader();
    }

    private void open() throws IOException {
        try {
            reader = new JsonRecordReader(Files.newBufferedReader(settings.path(), StandardCharsets.UTF_8),
                    settings.path(), settings.schema(), settings.format());
        } catch (IOException e) {
            throw new IOException("file source " + context.operatorId() + " subtask " + context.subtaskIndex()
                    + " cannot open " + settings.path() + ": " + e, e);
        }
        while (reader.recordIndex() < nextIndex) {
            if (!reader.skip()) {
                break;
            }
        }
    }

    private PollStatus end() throws IOException {
        ended = true;
        LOG.debug("File source {} subtask {} reached the end of {} at record {}", context.operatorId(),
                context.subtaskIndex(), settings.path(), nextIndex);
        closeReader();
        return PollStatus.END_OF_INPUT;
    }

    private void closeReader() throws IOException {
        if (reader != null) {
            JsonRecordReader r = reader;
            reader = null;
            r.close();
        }
    }
}
