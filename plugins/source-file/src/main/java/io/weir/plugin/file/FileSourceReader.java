package io.weir.plugin.file;

import io.weir.api.SuppressRestartsException;
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
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.zip.CRC32;

/**
 * Reads one subtask's share of a JSON file: with parallelism {@code p}, subtask {@code i} emits the
 * records whose 0-based index {@code n} satisfies {@code n % p == i} (and {@code n < limit}). Every
 * subtask reads the whole file and skips the records of the others.
 *
 * <p>Position: a {@link FilePosition} (index of the next record to look at, byte offset after the
 * last record looked at, the file's layout and a fingerprint of the bytes before the offset), kept
 * in operator list state {@value #STATE_NAME}, one per subtask (PROTOCOL.md §1 step 2). On restore
 * the reader seeks to the byte offset, so restoring costs the same wherever the checkpoint was
 * taken, and continues with exactly the records after it. Before seeking it checks that the file
 * is still the one the checkpoint read: a file now shorter than at the checkpoint, or whose bytes
 * before the offset differ, fails the restore with an {@link IOException} naming the file.
 *
 * <p>Checkpoints written before byte offsets were stored hold list state {@value #LEGACY_STATE_NAME}:
 * one {@code Long}, the record index. They are still read: that restore re-reads the file up to the
 * index once (in {@link #initializeState}, taking time proportional to the index), and the next
 * checkpoint stores a {@link FilePosition}.
 *
 * <p>Changing the parallelism of a file source on restore is not supported: a subtask that does not
 * get exactly one position fails with an {@link IllegalStateException}.
 *
 * <p>Each {@link #pollNext} emits up to {@value #MAX_ROWS_PER_POLL} rows (and looks at no more than
 * {@value #MAX_RECORDS_PER_POLL} records) so that mails stay timely. All methods run on the source
 * task's thread; the mutable fields are confined to it.
 */
public final class FileSourceReader implements SourceReader {
    /** Name of the operator list state holding the {@link FilePosition}. */
    public static final String STATE_NAME = "position";
    /** Name of the operator list state of checkpoints written before {@link #STATE_NAME}: the record index. */
    public static final String LEGACY_STATE_NAME = "offset";
    static final int MAX_ROWS_PER_POLL = 256;
    static final int MAX_RECORDS_PER_POLL = 4096;
    private static final Logger LOG = LoggerFactory.getLogger(FileSourceReader.class);

    private final FileSourceSettings settings;
    /** The {@code release-file}'s gate, or null without one. */
    private final ReleaseGate gate;

    // Task thread only.
    private OperatorContext context;
    private ListState<FilePosition> positionState;
    private FileChannel channel;
    private JsonRecordReader reader;
    /** Where the reader starts (before it is open) or stood when it was closed at the end. */
    private FilePosition position = FilePosition.START;
    /** Index of the next record of the file this subtask looks at. */
    private long nextIndex;
    private boolean ended;

    /** @param settings the validated config */
    public FileSourceReader(FileSourceSettings settings) {
        this(settings, System::nanoTime);
    }

    /** @param nanoClock the clock of the {@code release-file}'s re-reads (a test clock in tests) */
    FileSourceReader(FileSourceSettings settings, java.util.function.LongSupplier nanoClock) {
        this.settings = settings;
        this.gate = settings.releaseFile() == null ? null : new ReleaseGate(settings.releaseFile(), nanoClock);
    }

    /**
     * Registers the position state and restores the position from it (from a checkpoint of the
     * previous format: by reading the file up to the record index).
     *
     * @throws IllegalStateException if restored state does not hold exactly one position (parallelism changed)
     * @throws IOException if the file cannot be read or, restoring from a previous-format checkpoint,
     *         holds fewer records than the checkpoint had read or a malformed record before that point
     */
    @Override
    public void initializeState(OperatorContext context) throws Exception {
        this.context = context;
        this.positionState = context.operatorState().getListState(STATE_NAME, FilePosition.SERIALIZER);
        if (!context.isRestored()) {
            return;
        }
        List<FilePosition> positions = positionState.get();
        ListState<Long> legacyState = context.operatorState().getListState(LEGACY_STATE_NAME, Serializers.LONG);
        List<Long> legacy = legacyState.get();
        if (positions.size() == 1 && legacy.isEmpty()) {
            position = positions.get(0);
            nextIndex = position.recordIndex();
            LOG.info("File source {} subtask {} of job {} resumes {} at record {} (byte offset {})", context.operatorId(),
                    context.subtaskIndex(), context.jobName(), settings.path(), nextIndex, position.byteOffset());
        } else if (positions.isEmpty() && legacy.size() == 1) {
            legacyState.clear();
            nextIndex = legacy.get(0);
            LOG.info("File source {} subtask {} of job {} resumes {} at record {} from a checkpoint without a byte"
                    + " offset: reading the file up to there once", context.operatorId(), context.subtaskIndex(),
                    context.jobName(), settings.path(), nextIndex);
            openAndSkipTo(nextIndex);
        } else {
            throw new IllegalStateException("file source " + context.operatorId() + " subtask "
                    + context.subtaskIndex() + " of job " + context.jobName() + " restored " + positions.size()
                    + " positions " + positions + " and " + legacy.size() + " record indexes " + legacy
                    + " but needs exactly one: changing the parallelism of a file source is not supported");
        }
    }

    /**
     * Emits up to {@value #MAX_ROWS_PER_POLL} rows of this subtask's share.
     *
     * @return {@link PollStatus#END_OF_INPUT} once the file (or the limit) is exhausted,
     *         {@link PollStatus#NOTHING_AVAILABLE} while the {@code release-file} holds the source at its next record
     *         ({@link ReleaseGate}), otherwise {@link PollStatus#MORE_AVAILABLE}
     * @throws SuppressRestartsException caused by a {@link MalformedRecordException} on invalid JSON or a value of the
     *         wrong type in a record of this subtask (restarting would fail on the same record)
     * @throws IOException if the file cannot be read (e.g. it vanished), naming the file
     * @throws SuppressRestartsException if the file changed since the restored checkpoint (shorter, or other
     *         bytes before the offset), naming the file: restarting cannot help, so the job fails at once
     */
    @Override
    public PollStatus pollNext(Output out) throws Exception {
        try {
            return poll(out);
        } catch (MalformedRecordException e) {
            // the same record fails every restart: fail the job at once with the record's message
            throw new SuppressRestartsException(e.getMessage(), e);
        }
    }

    private PollStatus poll(Output out) throws Exception {
        if (ended) {
            return PollStatus.END_OF_INPUT;
        }
        if (reader == null) {
            openAt(position);
        }
        int parallelism = context.parallelism();
        int subtask = context.subtaskIndex();
        int emitted = 0;
        int looked = 0;
        while (emitted < MAX_ROWS_PER_POLL && looked < MAX_RECORDS_PER_POLL) {
            if (nextIndex >= settings.limit()) {
                return end();
            }
            if (gate != null && !gate.mayRead(nextIndex)) {
                return emitted > 0 || looked > 0 ? PollStatus.MORE_AVAILABLE : PollStatus.NOTHING_AVAILABLE;
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

    /** @return while a {@code release-file} holds the source, how long to idle before it is read again (10 ms) */
    @Override
    public long idleWaitNanos() {
        return gate == null ? SourceReader.super.idleWaitNanos() : ReleaseGate.RECHECK_NANOS;
    }

    /**
     * Stores the current {@link FilePosition} into the position state.
     *
     * @throws IOException if the bytes before the offset cannot be read back for the fingerprint
     */
    @Override
    public void snapshotState(long checkpointId) throws IOException {
        positionState.update(List.of(reader == null ? position : currentPosition()));
    }

    @Override
    public void close() throws Exception {
        closeReader();
    }

    /** Opens the file at {@code start}, after checking that the file still matches it. */
    private void openAt(FilePosition start) throws IOException {
        FileChannel ch = open();
        try {
            if (start.recordIndex() > 0) {
                checkUnchanged(ch, start);
                ch.position(start.byteOffset());
            }
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        channel = ch;
        reader = new JsonRecordReader(ch, settings.path(), settings.schema(), settings.format(), start);
    }

    /** Opens the file at its start and skips records up to {@code index} (restoring a previous-format checkpoint). */
    private void openAndSkipTo(long index) throws IOException {
        openAt(FilePosition.START);
        while (reader.recordIndex() < index) {
            if (!reader.skip()) {
                throw new SuppressRestartsException("file source " + context.operatorId() + " subtask " + context.subtaskIndex()
                        + " cannot resume " + settings.path() + " at record " + (index + 1) + ": the file now has only "
                        + reader.recordIndex() + " records; it changed since the checkpoint. Restore the file, or run"
                        + " the job without its checkpoints to read it from the start");
            }
        }
    }

    private FileChannel open() throws IOException {
        try {
            return FileChannel.open(settings.path(), StandardOpenOption.READ);
        } catch (IOException e) {
            throw new IOException("file source " + context.operatorId() + " subtask " + context.subtaskIndex()
                    + " cannot open " + settings.path() + ": " + e, e);
        }
    }

    private void checkUnchanged(FileChannel ch, FilePosition start) throws IOException {
        long length = ch.size();
        String resume = "file source " + context.operatorId() + " subtask " + context.subtaskIndex() + " of job "
                + context.jobName() + " cannot resume " + settings.path() + " at byte offset " + start.byteOffset()
                + " (record " + (start.recordIndex() + 1) + "): ";
        String fix = ". Restore the file the checkpoint read, or start the job over on the new file: delete the job's"
                + " checkpoint directory and the output its sinks committed";
        if (length < start.fileLength()) {
            throw new SuppressRestartsException(resume + "the file is " + length + " bytes long but was " + start.fileLength()
                    + " bytes at the checkpoint; it was truncated or replaced" + fix);
        }
        if (fingerprint(ch, start.byteOffset(), start.fingerprintLength()) != start.fingerprintCrc()) {
            throw new SuppressRestartsException(resume + "the " + start.fingerprintLength() + " bytes before that offset differ from"
                    + " the checkpoint's; the file was changed or replaced" + fix);
        }
    }

    /** @return the position after the last record looked at, with the file's current length and a fingerprint */
    private FilePosition currentPosition() throws IOException {
        long index = reader.recordIndex();
        if (index == 0) {
            return FilePosition.START;
        }
        long offset = reader.byteOffset();
        int n = (int) Math.min(FilePosition.FINGERPRINT_BYTES, offset);
        return new FilePosition(index, offset, reader.layout(), Math.max(offset, channel.size()), n,
                fingerprint(channel, offset, n));
    }

    /** @return CRC-32 of the {@code n} bytes before {@code offset}, read without moving the channel */
    private int fingerprint(FileChannel ch, long offset, int n) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(n);
        long at = offset - n;
        while (bytes.hasRemaining()) {
            if (ch.read(bytes, at + bytes.position()) < 0) {
                break; // shorter than the checkpoint's file: the CRC differs, or the length check failed first
            }
        }
        bytes.flip();
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return (int) crc.getValue();
    }

    private PollStatus end() throws IOException {
        ended = true;
        position = currentPosition();
        LOG.debug("File source {} subtask {} reached the end of {} at record {}", context.operatorId(),
                context.subtaskIndex(), settings.path(), nextIndex);
        closeReader();
        return PollStatus.END_OF_INPUT;
    }

    private void closeReader() throws IOException {
        if (reader != null) {
            JsonRecordReader r = reader;
            reader = null;
            channel = null;
            r.close();
        }
    }
}
