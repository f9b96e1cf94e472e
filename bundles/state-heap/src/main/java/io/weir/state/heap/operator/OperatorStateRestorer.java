package io.weir.state.heap.operator;

import io.weir.core.checkpoint.OperatorStateHandle;
import io.weir.core.checkpoint.StreamStateHandle;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the elements an {@link OperatorStateHandle} lists, by offset, in one forward pass per stream.
 * Elements stay serialized until the operator registers the state (and so supplies the serializer).
 * Lists of the same name from several handles are concatenated in handle order. Task thread.
 */
final class OperatorStateRestorer {
    private OperatorStateRestorer() {
    }

    /**
     * @param context job/operator, for errors
     * @return state name → serialized elements, in handle order then offset order
     * @throws IOException naming the stream and the operator if it is missing, truncated or malformed
     */
    static Map<String, List<byte[]>> restore(List<OperatorStateHandle> handles, String context) throws IOException {
        Map<String, List<byte[]>> result = new LinkedHashMap<>();
        for (OperatorStateHandle handle : handles) {
            record Element(String name, long offset) {
            }
            List<Element> elements = new ArrayList<>();
            handle.stateOffsets().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
                result.computeIfAbsent(e.getKey(), k -> new ArrayList<>());
                Arrays.stream(e.getValue()).forEach(o -> elements.add(new Element(e.getKey(), o)));
            });
            if (elements.isEmpty()) {
                continue;
            }
            elements.sort(Comparator.comparingLong(Element::offset));
            StreamStateHandle delegate = handle.delegate();
            String source = delegate instanceof StreamStateHandle.FileStateHandle f ? f.path()
                    : "inline state (" + delegate.size() + " bytes)";
            try (InputStream raw = delegate.open(); DataInputStream in = new DataInputStream(raw)) {
                int magic = in.readInt();
                int version = in.readInt();
                if (magic != OperatorSnapshotFormat.MAGIC) {
                    throw new IOException(String.format("not a heap operator state snapshot (magic 0x%08X)", magic));
                }
                if (version < 1 || version > OperatorSnapshotFormat.VERSION) {
                    throw new IOException("unsupported heap operator state format version " + version);
                }
                long position = 8;
                for (Element e : elements) {
                    if (e.offset() < position) {
                        throw new IOException("element offset " + e.offset() + " of state '" + e.name()
                                + "' overlaps the previous element (position " + position + ")");
                    }
                    in.skipNBytes(e.offset() - position);
                    int length = in.readInt();
                    if (length < 0) {
                        throw new IOException("negative element length " + length + " at offset " + e.offset());
                    }
                    byte[] bytes = new byte[length];
                    in.readFully(bytes);
                    position = e.offset() + 4 + length;
                    result.get(e.name()).add(bytes);
                }
            } catch (EOFException e) {
                throw new IOException("cannot restore operator state of " + context + " from " + source
                        + ": the stream ends early (truncated)", e);
            } catch (IOException e) {
                throw new IOException("cannot restore operator state of " + context + " from " + source + ": "
                        + e.getMessage(), e);
            }
        }
        return result;
    }
}
