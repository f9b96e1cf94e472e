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
 */
public record FileTransaction(String inProgressPath, String finalPath) {
    /** Binary form: the two paths as {@link Serializers#writeString} strings. Stable; stateless. */
    public static final TypeSerializer<FileTransaction> SERIALIZER = new TypeSerializer<>() {
        @Override
        public void serialize(FileTransaction value, DataOutput out) throws IOException {
            Serializers.writeString(value.inProgressPath, out);
            Serializers.writeString(value.finalPath, out);
        }

        @Override
        public FileTransaction deserialize(DataInput in) throws IOException {
            String inProgress = Serializers.readString(in);
            String fin = Serializers.readString(in);
            try {
                return new FileTransaction(inProgress, fin);
            } catch (IllegalArgumentException e) {
                throw new IOException("invalid file transaction handle: " + e.getMessage(), e);
            }
        }
    };

    /** @throws IllegalArgumentException if a path is empty or both are the same */
    public FileTransaction {
        if (inProgressPath == null || inProgressPath.isEmpty() || finalPath == null || finalPath.isEmpty()) {
            throw new IllegalArgumentException("transaction paths must not be empty: " + inProgressPath + ", " + finalPath);
        }
        if (inProgressPath.equals(finalPath)) {
            throw new IllegalArgumentException("in-progress and final path are both " + finalPath);
        }
    }
}
