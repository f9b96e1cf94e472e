package io.weir.plugin.filesink;

import io.weir.api.serialization.Serializers;
import io.weir.api.serialization.TypeSerializer;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * The handle of one {@link FileSink} transaction, stored in checkpoints: the hidden file rows are
 * written to ({@code .<prefix>-<subtask>-<uuid>.inprogress}) and the name it gets on commit
 * ({@code <prefix>-<subtask>-<uuid>.jsonl}), both absolute paths in the sink directory.
 *
 * @param inProgressPath absolute path of the in-progress file
 * @param finalPath absolute path of the committed file
 * @param rows rows the transaction holds, as known at pre-commit (0 before): a restored sink that finds
 *        neither file of a transaction with rows knows its data was lost
 */
public record FileTransaction(String inProgressPath, String finalPath, long rows) {
    /** Binary form: the two paths as {@link Serializers#writeString} strings, then the row count (long). Stable; stateless. */
    public static final TypeSerializer<FileTransaction> SERIALIZER = new TypeSerializer<>() {
        @Override
        public void serialize(FileTransaction value, DataOutput out) throws IOException {
            Serializers.writeString(value.inProgressPath, out);
            Serializers.writeString(value.finalPath, out);
            out.writeLong(value.rows);
        }

        @Override
        public FileTransaction deserialize(DataInput in) throws IOException {
            String inProgress = Serializers.readString(in);
            String fin = Serializers.readString(in);
            long rows = in.readLong();
            try {
                return new FileTransaction(inProgress, fin, rows);
            } catch (IllegalArgumentException e) {
                throw new IOException("invalid file transaction handle: " + e.getMessage(), e);
            }
        }
    };

    /** @throws IllegalArgumentException if a path is empty, both are the same, or rows is negative */
    public FileTransaction {
        if (inProgressPath == null || inProgressPath.isEmpty() || finalPath == null || finalPath.isEmpty()) {
            throw new IllegalArgumentException("transaction paths must not be empty: " + inProgressPath + ", " + finalPath);
        }
        if (rows < 0) {
            throw new IllegalArgumentException("row count must be >= 0, got " + rows);
        }
        if (inProgressPath.equals(finalPath)) {
            throw new IllegalArgumentException("in-progress and final path are both " + finalPath);
        }
    }
}
