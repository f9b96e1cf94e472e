package io.weir.plugin.file;

import io.weir.api.serialization.TypeSerializer;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * Where a file source subtask stands in its input: between two records, as stored in a checkpoint.
 *
 * <p>The reader continues by seeking to {@code byteOffset}, so restoring costs the same at any
 * position. {@code fileLength} and the CRC-32 of the up to {@value #FINGERPRINT_BYTES} bytes before
 * the offset let a restore tell that the file changed since the checkpoint (see
 * {@link FileSourceReader}).
 *
 * @param recordIndex 0-based index in the file of the next record to look at (records of every
 *        subtask count), >= 0; decides which subtask owns the next records and numbers error messages
 * @param byteOffset offset in bytes of the first byte after the last record looked at (0 before the
 *        first record, and only then), >= 0 and <= {@code fileLength}
 * @param layout the layout found at the start of the file ({@link JsonFormat#ARRAY} or
 *        {@link JsonFormat#LINES}); {@link JsonFormat#AUTO} before the first record, and only then
 * @param fileLength the file's length in bytes when the position was taken, >= 0
 * @param fingerprintLength how many bytes before {@code byteOffset} {@code fingerprintCrc} covers,
 *        0..{@value #FINGERPRINT_BYTES} and <= {@code byteOffset}
 * @param fingerprintCrc CRC-32 of those bytes (0 when there are none)
 */
public record FilePosition(long recordIndex, long byteOffset, JsonFormat layout, long fileLength,
                           int fingerprintLength, int fingerprintCrc) {
    /** At most this many bytes before the offset are fingerprinted. */
    public static final int FINGERPRINT_BYTES = 64;

    /** The start of a file not yet opened. */
    public static final FilePosition START = new FilePosition(0, 0, JsonFormat.AUTO, 0, 0, 0);

    /** The binary form written by {@link #SERIALIZER}; stored in checkpoints, so never changed, only added to. */
    static final byte FORMAT_VERSION = 1;

    /** Serializer of the operator state: a version byte, then the fields in declaration order. */
    public static final TypeSerializer<FilePosition> SERIALIZER = new TypeSerializer<>() {
        @Override
        public void serialize(FilePosition p, DataOutput out) throws IOException {
            out.writeByte(FORMAT_VERSION);
            out.writeLong(p.recordIndex);
            out.writeLong(p.byteOffset);
            out.writeByte(p.layout.ordinal());
            out.writeLong(p.fileLength);
            out.writeByte(p.fingerprintLength);
            out.writeInt(p.fingerprintCrc);
        }

        @Override
        public FilePosition deserialize(DataInput in) throws IOException {
            int version = in.readUnsignedByte();
            if (version != FORMAT_VERSION) {
                throw new IOException("file source position has format version " + version + ", this version of the"
                        + " plugin reads only version " + FORMAT_VERSION + ": use the plugin version that wrote the checkpoint");
            }
            long recordIndex = in.readLong();
            long byteOffset = in.readLong();
            int layout = in.readUnsignedByte();
            if (layout >= JsonFormat.values().length) {
                throw new IOException("file source position has unknown layout " + layout);
            }
            long fileLength = in.readLong();
            int fingerprintLength = in.readUnsignedByte();
            int fingerprintCrc = in.readInt();
            try {
                return new FilePosition(recordIndex, byteOffset, JsonFormat.values()[layout], fileLength,
                        fingerprintLength, fingerprintCrc);
            } catch (IllegalArgumentException e) {
                throw new IOException("file source position is invalid: " + e.getMessage(), e);
            }
        }
    };

    /** @throws IllegalArgumentException if a field is out of the range documented on the class */
    public FilePosition {
        java.util.Objects.requireNonNull(layout, "layout");
        if (recordIndex < 0 || byteOffset < 0 || byteOffset > fileLength) {
            throw new IllegalArgumentException("recordIndex (" + recordIndex + ") and byteOffset (" + byteOffset
                    + ") must be >= 0 and byteOffset <= fileLength (" + fileLength + ")");
        }
        if (fingerprintLength < 0 || fingerprintLength > FINGERPRINT_BYTES || fingerprintLength > byteOffset) {
            throw new IllegalArgumentException("fingerprintLength must be in 0.." + FINGERPRINT_BYTES
                    + " and <= byteOffset (" + byteOffset + "), got " + fingerprintLength);
        }
        if (recordIndex == 0 ? layout != JsonFormat.AUTO || byteOffset != 0 : layout == JsonFormat.AUTO || byteOffset == 0) {
            throw new IllegalArgumentException("before the first record (and only there) the layout must be auto and"
                    + " the byte offset 0, got record index " + recordIndex + ", layout " + layout + ", byte offset "
                    + byteOffset);
        }
    }
}
