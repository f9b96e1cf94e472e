package io.weir.plugin.postgres;

import io.weir.api.serialization.Serializers;
import io.weir.api.serialization.TypeSerializer;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * The handle of one {@link PostgresSink} transaction, stored in checkpoints once pre-committed.
 *
 * @param gid the prepared transaction's id ({@link Gid}); empty while the transaction is open and for a
 *        pre-committed transaction without rows, which prepared nothing and commits as a no-op; or
 *        {@code held:<subtask>:<checkpoint>} for upsert rows kept in the checkpoint instead ({@link HeldRows}), which
 *        prepared nothing either
 * @param rows rows written into it (0 while open: the count is taken at pre-commit)
 */
public record PostgresTransaction(String gid, long rows) {
    /** Binary form: the gid as a {@link Serializers#writeString} string, then the row count (long). Stable; stateless. */
    public static final TypeSerializer<PostgresTransaction> SERIALIZER = new TypeSerializer<>() {
        @Override
        public void serialize(PostgresTransaction value, DataOutput out) throws IOException {
            Serializers.writeString(value.gid, out);
            out.writeLong(value.rows);
        }

        @Override
        public PostgresTransaction deserialize(DataInput in) throws IOException {
            String gid = Serializers.readString(in);
            long rows = in.readLong();
            try {
                return new PostgresTransaction(gid, rows);
            } catch (IllegalArgumentException e) {
                throw new IOException("invalid PostgreSQL transaction handle: " + e.getMessage(), e);
            }
        }
    };

    /** @throws IllegalArgumentException if rows is negative, or the gid is empty although rows were written */
    public PostgresTransaction {
        if (gid == null) {
            throw new IllegalArgumentException("gid must not be null (empty for a transaction that prepared nothing)");
        }
        if (rows < 0) {
            throw new IllegalArgumentException("row count must be >= 0, got " + rows);
        }
        if (rows > 0 && gid.isEmpty()) {
            throw new IllegalArgumentException("a transaction with " + rows + " rows must have a gid");
        }
    }

    /** The gid prefix of a transaction whose rows were held back ({@link HeldRows}). */
    static final String HELD_PREFIX = "held:";

    /** @return the handle of rows held back by {@code subtask} at {@code checkpointId} */
    static PostgresTransaction held(int subtask, long checkpointId, long rows) {
        return new PostgresTransaction(HELD_PREFIX + subtask + ":" + checkpointId, rows);
    }

    /** @return whether a prepared transaction exists for it in the database (it has rows and was not held back) */
    boolean prepared() {
        return !gid.isEmpty() && !isHeld();
    }

    /** @return whether its rows were held back in the checkpoint instead of being prepared */
    boolean isHeld() {
        return gid.startsWith(HELD_PREFIX);
    }
}
