package io.weir.runtime.io.network;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.RowSerializer;
import io.weir.api.Schema;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The framing {@link RecordWriter} puts into network buffers: per channel, records in emit order, each a 4-byte length
 * then the row's {@link RowSerializer#serialize} bytes, never split across buffers, buffers filled up to their capacity
 * or the consumer's desired size. Expected bytes come from {@code serialize} into a {@link DataOutputStream}.
 */
class RecordWriterTest {
    private static final Schema SCHEMA = Schema.builder().field("k", FieldType.LONG).field("s", FieldType.STRING)
            .field("b", FieldType.BYTES).build();
    private static final RowSerializer SERIALIZER = new RowSerializer(SCHEMA);

    @Test
    void rowsOfEveryChannelArriveFramedInOrderAcrossFullBuffersBroadcastsAndAnOversizedRow() throws IOException {
        BufferPool pool = new BufferPool(128, 100);
        List<PipelinedSubpartition> channels = List.of(new PipelinedSubpartition(100), new PipelinedSubpartition(100));
        RecordWriter writer = new RecordWriter(channels, pool, ChannelSelector.rebalance(2, 0), SERIALIZER);
        List<List<byte[]>> expected = List.of(new ArrayList<>(), new ArrayList<>());
        for (int i = 0; i < 60; i++) {
            // sizes 1 + 8 + (4 + 1..3) + (4 + 0..40): several rows per 128-byte buffer, boundaries at varying offsets
            Row row = new Row(SCHEMA, (long) i, i % 7 == 0 ? null : "r" + i, new byte[i % 41]);
            writer.emit(row);
            expected.get(i % 2).add(serialize(row));
        }
        Row big = new Row(SCHEMA, -1L, "x".repeat(300), null); // larger than a pooled buffer: an overdraft of its own
        writer.emit(big);
        expected.get(0).add(serialize(big));
        ChannelSelector broadcast = ChannelSelector.broadcast();
        RecordWriter broadcaster = new RecordWriter(channels, pool, broadcast, SERIALIZER);
        writer.flushAll();
        Row everywhere = new Row(SCHEMA, 99L, "all", new byte[] {1});
        broadcaster.emit(everywhere);
        broadcaster.flushAll();
        expected.get(0).add(serialize(everywhere));
        expected.get(1).add(serialize(everywhere));

        for (int c = 0; c < 2; c++) {
            List<NetworkBuffer> buffers = drain(channels.get(c));
            assertThat(records(buffers)).as("channel %d", c).containsExactlyElementsOf(expected.get(c));
            buffers.forEach(NetworkBuffer::recycle);
        }
        assertThat(writer.recordsWritten()).isEqualTo(61);
        assertThat(broadcaster.recordsWritten()).isEqualTo(1);
        assertThat(pool.inUse()).isZero();
    }

    @Test
    void buffersStopAtTheDesiredSizeTheConsumerAskedFor() throws IOException {
        BufferPool pool = new BufferPool(1024, 100);
        PipelinedSubpartition channel = new PipelinedSubpartition(100);
        channel.setDesiredBufferSize(100);
        RecordWriter writer = new RecordWriter(List.of(channel), pool, ChannelSelector.forward(), SERIALIZER);
        List<byte[]> expected = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            Row row = new Row(SCHEMA, (long) i, "s", new byte[i % 5 * 4]); // 22..38 bytes with the length, 1,200 in all
            writer.emit(row);
            expected.add(serialize(row));
        }
        writer.flushAll();

        List<NetworkBuffer> buffers = drain(channel);
        assertThat(records(buffers)).containsExactlyElementsOf(expected);
        for (NetworkBuffer b : buffers) {
            assertThat(b.size()).as("bytes of a buffer").isBetween(1, 100);
        }
        // a buffer is sent when the next row (<= 38 bytes) does not fit, so each but the last holds > 62 bytes
        assertThat(buffers.size()).as("buffers for 1,200 bytes in 100-byte buffers").isBetween(12, 20);
    }

    private static byte[] serialize(Row row) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        SERIALIZER.serialize(row, new DataOutputStream(bytes));
        return bytes.toByteArray();
    }

    private static List<NetworkBuffer> drain(PipelinedSubpartition channel) {
        List<NetworkBuffer> buffers = new ArrayList<>();
        Object o;
        while ((o = channel.poll()) != null) {
            buffers.add((NetworkBuffer) o);
        }
        return buffers;
    }

    /** Splits buffers into records by their 4-byte lengths; a record that ran past its buffer's size fails. */
    private static List<byte[]> records(List<NetworkBuffer> buffers) {
        List<byte[]> out = new ArrayList<>();
        for (NetworkBuffer b : buffers) {
            ByteBuffer in = ByteBuffer.wrap(b.segment(), 0, b.size());
            while (in.hasRemaining()) {
                int len = in.getInt();
                assertThat(len).as("record length").isBetween(0, in.remaining());
                out.add(Arrays.copyOfRange(b.segment(), in.position(), in.position() + len));
                in.position(in.position() + len);
            }
        }
        return out;
    }
}
