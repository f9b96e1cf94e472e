package io.weir.plugin.postgres;

import io.weir.api.Row;
import io.weir.api.RowSerializer;
import io.weir.api.Schema;
import io.weir.api.serialization.TypeSerializer;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The upsert rows of one checkpoint of one sink subtask that were not sent to the server because a transaction
 * the subtask prepared earlier was still uncommitted when the checkpoint's barrier came: sent, they would have
 * waited for that transaction's row locks, which only the same task thread releases (by committing it). They are
 * kept in the checkpoint (union operator state) instead and upserted once every earlier transaction of the subtask
 * is committed. Immutable.
 *
 * @param subtask the index of the sink subtask that held them back
 * @param checkpointId the checkpoint whose barrier ended their transaction
 * @param rows the rows, in the order the subtask received them; not empty
 */
record HeldRows(int subtask, long checkpointId, List<Row> rows) {
    /** @throws IllegalArgumentException if subtask or checkpoint id is negative or there are no rows */
    HeldRows {
        rows = List.copyOf(rows);
        if (subtask < 0 || checkpointId < 0 || rows.isEmpty()) {
            throw new IllegalArgumentException("held rows need a subtask >= 0, a checkpoint id >= 0 and rows, got subtask "
                    + subtask + ", checkpoint " + checkpointId + ", " + rows.size() + " rows");
        }
    }

    /**
     * Binary form: subtask (int), checkpoint id (long), row count (int), then each row as {@link RowSerializer} writes
     * it. Stateless.
     *
     * @param schema the schema of the rows (the sink's input)
     * @return the serializer for that schema
     */
    static TypeSerializer<HeldRows> serializer(Schema schema) {
        RowSerializer rowSerializer = new RowSerializer(schema);
        return new TypeSerializer<>() {
            @Override
            public void serialize(HeldRows value, DataOutput out) throws IOException {
                out.writeInt(value.subtask);
                out.writeLong(value.checkpointId);
                out.writeInt(value.rows.size());
                for (Row row : value.rows) {
                    rowSerializer.serialize(row, out);
                }
            }

            @Override
            public HeldRows deserialize(DataInput in) throws IOException {
                int subtask = in.readInt();
                long checkpointId = in.readLong();
                int n = in.readInt();
                List<Row> rows = new ArrayList<>(n);
                for (int r = 0; r < n; r++) {
                    rows.add(rowSerializer.deserialize(in));
                }
                try {
                    return new HeldRows(subtask, checkpointId, rows);
                } catch (IllegalArgumentException e) {
                    throw new IOException("invalid held rows in the checkpoint: " + e.getMessage(), e);
                }
            }
        };
    }
}
