package io.weir.state.heap.operator;

import io.weir.api.serialization.Serializers;
import io.weir.api.serialization.TypeSerializer;
import io.weir.core.checkpoint.OperatorStateHandle;
import io.weir.core.state.AsyncSnapshot;
import io.weir.core.storage.CheckpointStateOutputStream;
import io.weir.core.storage.CheckpointStreamFactory;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The asynchronous part of an operator-state snapshot: writes copies taken by the synchronous part in
 * the {@link OperatorSnapshotFormat}, recording each element's offset. Reads only its own copies and
 * immutable restored bytes, so it runs on any thread without locks.
 */
final class OperatorSnapshotWriter implements AsyncSnapshot<OperatorStateHandle> {
    /** One state as of the snapshot: elements with their serializer, or restored, still-serialized elements. */
    record Picture<T>(String name, TypeSerializer<T> serializer, List<T> elements, List<byte[]> serialized) {
        int size() {
            return elements != null ? elements.size() : serialized.size();
        }
    }

    private final long checkpointId;
    private final List<Picture<?>> pictures;
    private final CheckpointStreamFactory streams;
    private final String context;

    OperatorSnapshotWriter(long checkpointId, List<Picture<?>> pictures, CheckpointStreamFactory streams, String context) {
        this.checkpointId = checkpointId;
        this.pictures = List.copyOf(pictures);
        this.streams = streams;
        this.context = context;
    }

    /**
     * @return the handle: per state name the offsets of its elements, and the stream
     * @throws IOException naming the checkpoint and operator if writing fails (the stream is discarded)
     */
    @Override
    public OperatorStateHandle write() throws IOException {
        CheckpointStateOutputStream out = streams.createOutputStream();
        try {
            DataOutputStream data = new DataOutputStream(out);
            data.writeInt(OperatorSnapshotFormat.MAGIC);
            data.writeInt(OperatorSnapshotFormat.VERSION);
            Map<String, long[]> offsets = new HashMap<>();
            ByteArrayOutputStream scratch = new ByteArrayOutputStream(256);
            DataOutputStream scratchData = new DataOutputStream(scratch);
            for (Picture<?> p : pictures) {
                Serializers.writeString(p.name(), data);
                data.writeInt(p.size());
                offsets.put(p.name(), writeElements(p, data, out, scratch, scratchData));
            }
            data.flush();
            return new OperatorStateHandle(offsets, out.closeAndGetHandle());
        } catch (IOException | RuntimeException e) {
            out.close();
            throw new IOException("writing operator state of checkpoint " + checkpointId + " (" + context + ") failed: " + e, e);
        }
    }

    private static <T> long[] writeElements(Picture<T> p, DataOutputStream data, CheckpointStateOutputStream out,
            ByteArrayOutputStream scratch, DataOutputStream scratchData) throws IOException {
        long[] offsets = new long[p.size()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = out.position();
            if (p.elements() != null) {
                scratch.reset();
                p.serializer().serialize(p.elements().get(i), scratchData);
                scratchData.flush();
                data.writeInt(scratch.size());
                scratch.writeTo(data);
            } else {
                byte[] bytes = p.serialized().get(i);
                data.writeInt(bytes.length);
                data.write(bytes);
            }
        }
        return offsets;
    }
}
