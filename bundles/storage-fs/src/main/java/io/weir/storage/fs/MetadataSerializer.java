package io.weir.storage.fs;

import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.SharedFileHandle;
import io.weir.core.checkpoint.MasterState;
import io.weir.core.checkpoint.OperatorState;
import io.weir.core.checkpoint.OperatorStateHandle;
import io.weir.core.checkpoint.ChannelStateHandle;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.checkpoint.StreamStateHandle.ByteStreamStateHandle;
import io.weir.core.checkpoint.StreamStateHandle.FileStateHandle;
import io.weir.core.state.KeyGroupRange;
import io.weir.core.state.KeyHashVersion;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.zip.CRC32;

/**
 * Encodes {@link CheckpointMetadata} in the binary {@code _metadata} format and decodes it again. The
 * byte layout and the versioning policy are in {@code docs/checkpoint-format.md}; in short:
 * {@code magic (4) | version (4) | body length (4) | body | CRC32 of all preceding bytes (4)}, big-endian.
 *
 * <p>Stateless and thread-safe.
 */
public final class MetadataSerializer {
    /** First four bytes of every {@code _metadata} file: ASCII {@code "WCMD"} (Weir Checkpoint MetaData). */
    public static final int MAGIC = 0x57434D44;
    /**
     * The format version this class writes, and the newest it reads. Version 7 added the key hash version (how
     * keys were placed in key groups, {@link KeyHashVersion}; older files are {@link KeyHashVersion#LEGACY}); 6 added the shared files of
     * keyed state handles (incremental checkpoints: name, uploading checkpoint id, stream handle); version 5 added the handle kind that
     * names its file relative to the {@code _metadata}'s directory (relocatable checkpoints and savepoints);
     * 4 added the handle kinds that carry a CRC32 of the state stream; 3 added master states; 2 added
     * channel state.
     */
    public static final int CURRENT_VERSION = 7;

    /** magic + version + body length. */
    static final int HEADER_BYTES = 12;
    /** CRC32 trailer. */
    static final int TRAILER_BYTES = 4;

    /** Handle kinds (docs/checkpoint-format.md); 3 and 4 exist from version 4 on. */
    private static final byte HANDLE_FILE = 1;
    private static final byte HANDLE_INLINE = 2;
    private static final byte HANDLE_FILE_CRC32 = 3;
    private static final byte HANDLE_INLINE_CRC32 = 4;
    /** Version 5: a file inside the {@code _metadata}'s directory, by relative path ('/'-separated), with a CRC32. */
    private static final byte HANDLE_RELATIVE_FILE_CRC32 = 5;

    /**
     * Encodes with every file handle's absolute path (none relative).
     *
     * @return the complete file content (header, body, CRC trailer) of {@code metadata}
     * @throws IllegalArgumentException if a state handle has no stream (a bug in whoever built the metadata)
     */
    public byte[] serialize(CheckpointMetadata metadata) {
        return serialize(metadata, null);
    }

    /**
     * Encodes {@code metadata} for a {@code _metadata} file in {@code directory}: a state file inside that
     * directory (or below it) that has a CRC32 is named by its path relative to it, so the directory can be
     * moved or copied and still restores; any other file keeps its absolute path.
     *
     * @param directory the directory the {@code _metadata} file is written to, or null for absolute paths only
     * @return the complete file content (header, body, CRC trailer) of {@code metadata}
     * @throws IllegalArgumentException if a state handle has no stream (a bug in whoever built the metadata)
     */
    public byte[] serialize(CheckpointMetadata metadata, Path directory) {
        Path base = directory == null ? null : directory.toAbsolutePath().normalize();
        ByteArrayOutputStream bodyBytes = new ByteArrayOutputStream(1024);
        try (DataOutputStream body = new DataOutputStream(bodyBytes)) {
            writeBody(metadata, base, body);
        } catch (IOException e) {
            throw new IllegalStateException("in-memory write failed", e);
        }
        byte[] b = bodyBytes.toByteArray();
        ByteBuffer out = ByteBuffer.allocate(HEADER_BYTES + b.length + TRAILER_BYTES);
        out.putInt(MAGIC).putInt(CURRENT_VERSION).putInt(b.length).put(b);
        CRC32 crc = new CRC32();
        crc.update(out.array(), 0, out.position());
        out.putInt((int) crc.getValue());
        return out.array();
    }

    /**
     * Decodes and validates a complete {@code _metadata} file, checking in this order: length, magic,
     * version, body length, CRC, then the structure of the body. Relative file paths (version 5) are resolved
     * against {@code source}'s directory.
     *
     * @param bytes the file content
     * @param source the file's path, named in errors; relative state file paths resolve against its directory
     * @return the metadata
     * @throws IOException naming {@code source}, the problem and that the checkpoint cannot be used, if
     *         the file is truncated, has a wrong magic number, an unknown version, a CRC mismatch or a
     *         malformed body
     */
    public CheckpointMetadata deserialize(byte[] bytes, String source) throws IOException {
        if (bytes.length < HEADER_BYTES + TRAILER_BYTES) {
            throw corrupt(source, "is truncated: " + bytes.length + " bytes, shorter than the "
                    + (HEADER_BYTES + TRAILER_BYTES) + "-byte header and trailer");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        int magic = in.getInt();
        if (magic != MAGIC) {
            throw corrupt(source, String.format("is not a Weir checkpoint metadata file: magic number 0x%08X, expected 0x%08X",
                    magic, MAGIC));
        }
        int version = in.getInt();
        if (version < 1 || version > CURRENT_VERSION) {
            throw corrupt(source, "has format version " + version + " but this Weir reads versions 1 to "
                    + CURRENT_VERSION + (version > CURRENT_VERSION ? " (written by a newer Weir?)" : ""));
        }
        int bodyLength = in.getInt();
        long expected = (long) HEADER_BYTES + bodyLength + TRAILER_BYTES;
        if (bodyLength < 0 || expected > bytes.length) {
            throw corrupt(source, "is truncated: " + bytes.length + " bytes, the header announces " + expected);
        }
        if (expected < bytes.length) {
            throw corrupt(source, "has " + (bytes.length - expected) + " unexpected bytes after the end ("
                    + expected + " bytes announced)");
        }
        CRC32 crc = new CRC32();
        crc.update(bytes, 0, HEADER_BYTES + bodyLength);
        int stored = ByteBuffer.wrap(bytes, HEADER_BYTES + bodyLength, TRAILER_BYTES).getInt();
        if (stored != (int) crc.getValue()) {
            throw corrupt(source, String.format("is corrupt: CRC32 mismatch (stored 0x%08X, computed 0x%08X)",
                    stored, (int) crc.getValue()));
        }
        Path base = Path.of(source).toAbsolutePath().normalize().getParent();
        try (DataInputStream body = new DataInputStream(new ByteArrayInputStream(bytes, HEADER_BYTES, bodyLength))) {
            CheckpointMetadata metadata = readBody(body, version, base);
            if (body.available() != 0) {
                throw new IOException(body.available() + " bytes left over after the last operator");
            }
            return metadata;
        } catch (EOFException e) {
            throw corrupt(source, "is corrupt: the body ends in the middle of a record", e);
        } catch (IOException | IllegalArgumentException e) {
            throw corrupt(source, "is corrupt: " + e.getMessage(), e);
        }
    }

    private static void writeBody(CheckpointMetadata m, Path base, DataOutputStream out) throws IOException {
        out.writeLong(m.checkpointId());
        writeString(m.jobName(), out);
        out.writeLong(m.timestamp());
        out.writeBoolean(m.isFinal());
        out.writeByte(m.keyHashVersion().id()); // version 7
        // Sorted so that the same metadata always gives the same bytes.
        Map<String, OperatorState> operators = new TreeMap<>(m.operatorStates());
        out.writeInt(operators.size());
        for (OperatorState op : operators.values()) {
            writeString(op.operatorId(), out);
            out.writeInt(op.parallelism());
            out.writeInt(op.maxParallelism());
            Map<Integer, OperatorSubtaskState> subtasks = new TreeMap<>(op.subtaskStates());
            out.writeInt(subtasks.size());
            for (Map.Entry<Integer, OperatorSubtaskState> e : subtasks.entrySet()) {
                out.writeInt(e.getKey());
                String where = "operator " + op.operatorId() + " subtask " + e.getKey();
                List<OperatorStateHandle> opHandles = e.getValue().operatorState();
                out.writeInt(opHandles.size());
                for (OperatorStateHandle h : opHandles) {
                    Map<String, long[]> offsets = new TreeMap<>(h.stateOffsets());
                    out.writeInt(offsets.size());
                    for (Map.Entry<String, long[]> s : offsets.entrySet()) {
                        writeString(s.getKey(), out);
                        writeLongs(s.getValue(), out);
                    }
                    writeStreamHandle(h.delegate(), where, base, out);
                }
                List<KeyGroupsStateHandle> keyed = e.getValue().keyedState();
                out.writeInt(keyed.size());
                for (KeyGroupsStateHandle h : keyed) {
                    out.writeInt(h.range().start());
                    out.writeInt(h.range().end());
                    writeLongs(h.offsets(), out);
                    writeStreamHandle(h.delegate(), where, base, out);
                    // version 6: shared files (incremental keyed state), in the handle's order
                    out.writeInt(h.sharedFiles().size());
                    for (SharedFileHandle f : h.sharedFiles()) {
                        writeString(f.name(), out);
                        out.writeLong(f.uploadedBy());
                        writeStreamHandle(f.handle(), where, base, out);
                    }
                }
                writeChannelState(e.getValue().inputChannelState(), where, base, out);
                writeChannelState(e.getValue().resultSubpartitionState(), where, base, out);
            }
        }
        // version 3: master hook states, inline, sorted by hook id
        List<MasterState> masters = new ArrayList<>(m.masterStates());
        masters.sort(Comparator.comparing(MasterState::hookId));
        out.writeInt(masters.size());
        for (MasterState master : masters) {
            writeString(master.hookId(), out);
            byte[] bytes = master.bytes();
            out.writeInt(bytes.length);
            out.write(bytes);
        }
    }

    /** Version 2: in-flight data of unaligned checkpoints, per channel. */
    private static void writeChannelState(List<ChannelStateHandle> handles, String where, Path base, DataOutputStream out)
            throws IOException {
        out.writeInt(handles.size());
        for (ChannelStateHandle h : handles) {
            out.writeInt(h.channel());
            out.writeLong(h.dataBytes());
            writeStreamHandle(h.delegate(), where, base, out);
        }
    }

    private static List<ChannelStateHandle> readChannelState(DataInputStream in, int version, Path base) throws IOException {
        int count = readCount(in, "channel state handle count");
        List<ChannelStateHandle> handles = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int channel = in.readInt();
            long dataBytes = in.readLong();
            handles.add(new ChannelStateHandle(channel, readStreamHandle(in, version, base), dataBytes));
        }
        return handles;
    }

    private static CheckpointMetadata readBody(DataInputStream in, int version, Path base) throws IOException {
        long checkpointId = in.readLong();
        String jobName = readString(in);
        long timestamp = in.readLong();
        boolean isFinal = in.readBoolean();
        KeyHashVersion keyHashVersion = version >= 7 ? KeyHashVersion.ofId(in.readUnsignedByte()) : KeyHashVersion.LEGACY;
        int operatorCount = readCount(in, "operator count");
        Map<String, OperatorState> operators = new HashMap<>();
        for (int o = 0; o < operatorCount; o++) {
            String operatorId = readString(in);
            int parallelism = in.readInt();
            int maxParallelism = in.readInt();
            int subtaskCount = readCount(in, "subtask count of operator " + operatorId);
            Map<Integer, OperatorSubtaskState> subtasks = new HashMap<>();
            for (int s = 0; s < subtaskCount; s++) {
                int index = in.readInt();
                int opHandleCount = readCount(in, "operator state handle count");
                List<OperatorStateHandle> opHandles = new ArrayList<>(opHandleCount);
                for (int h = 0; h < opHandleCount; h++) {
                    int stateCount = readCount(in, "operator state count");
                    Map<String, long[]> offsets = new HashMap<>();
                    for (int i = 0; i < stateCount; i++) {
                        offsets.put(readString(in), readLongs(in));
                    }
                    opHandles.add(new OperatorStateHandle(offsets, readStreamHandle(in, version, base)));
                }
                int keyedCount = readCount(in, "keyed state handle count");
                List<KeyGroupsStateHandle> keyed = new ArrayList<>(keyedCount);
                for (int h = 0; h < keyedCount; h++) {
                    KeyGroupRange range = new KeyGroupRange(in.readInt(), in.readInt());
                    long[] offsets = readLongs(in);
                    StreamStateHandle delegate = readStreamHandle(in, version, base);
                    List<SharedFileHandle> shared = new ArrayList<>();
                    if (version >= 6) {
                        int sharedCount = readCount(in, "shared file count");
                        for (int f = 0; f < sharedCount; f++) {
                            String name = readString(in);
                            long uploadedBy = in.readLong();
                            shared.add(new SharedFileHandle(name, readStreamHandle(in, version, base), uploadedBy));
                        }
                    }
                    keyed.add(new KeyGroupsStateHandle(range, offsets, delegate, shared));
                }
                List<ChannelStateHandle> input = version >= 2 ? readChannelState(in, version, base) : List.of();
                List<ChannelStateHandle> output = version >= 2 ? readChannelState(in, version, base) : List.of();
                if (subtasks.put(index, new OperatorSubtaskState(opHandles, keyed, input, output)) != null) {
                    throw new IOException("operator " + operatorId + " lists subtask " + index + " twice");
                }
            }
            if (operators.put(operatorId, new OperatorState(operatorId, parallelism, maxParallelism, subtasks)) != null) {
                throw new IOException("operator " + operatorId + " is listed twice");
            }
        }
        List<MasterState> masters = new ArrayList<>();
        if (version >= 3) {
            int masterCount = readCount(in, "master state count");
            for (int i = 0; i < masterCount; i++) {
                String hookId = readString(in);
                byte[] bytes = new byte[readCount(in, "size of master state " + hookId)];
                in.readFully(bytes);
                masters.add(new MasterState(hookId, bytes));
            }
        }
        return new CheckpointMetadata(checkpointId, jobName, timestamp, isFinal, operators, masters, keyHashVersion);
    }

    private static void writeStreamHandle(StreamStateHandle handle, String where, Path base, DataOutputStream out)
            throws IOException {
        if (handle == null) {
            throw new IllegalArgumentException(where + " has a state handle without a stream");
        }
        OptionalInt crc = handle.crc32();
        String relative = handle instanceof FileStateHandle f && crc.isPresent() ? relativeInside(base, f.path()) : null;
        if (relative != null) {
            out.writeByte(HANDLE_RELATIVE_FILE_CRC32);
            writeString(relative, out);
            out.writeLong(handle.size());
        } else if (handle instanceof FileStateHandle f) {
            out.writeByte(crc.isPresent() ? HANDLE_FILE_CRC32 : HANDLE_FILE);
            writeString(f.path(), out);
            out.writeLong(f.size());
        } else {
            byte[] data = ((ByteStreamStateHandle) handle).data();
            out.writeByte(crc.isPresent() ? HANDLE_INLINE_CRC32 : HANDLE_INLINE);
            out.writeInt(data.length);
            out.write(data);
        }
        if (crc.isPresent()) {
            out.writeInt(crc.getAsInt());
        }
    }

    /** @return {@code path} relative to {@code base} with '/' separators if it lies below {@code base}, else null */
    private static String relativeInside(Path base, String path) {
        if (base == null) {
            return null;
        }
        Path p = Path.of(path).toAbsolutePath().normalize();
        if (!p.startsWith(base) || p.equals(base)) {
            return null;
        }
        StringBuilder sb = new StringBuilder();
        for (Path part : base.relativize(p)) {
            sb.append(sb.length() == 0 ? "" : "/").append(part);
        }
        return sb.toString();
    }

    /** @return {@code relative} resolved against {@code base}; it must stay inside {@code base} */
    private static String resolveInside(Path base, String relative) throws IOException {
        Path p = base.resolve(relative).normalize();
        if (relative.isEmpty() || Path.of(relative).isAbsolute() || !p.startsWith(base) || p.equals(base)) {
            throw new IOException("relative state file path '" + relative + "' does not name a file inside " + base);
        }
        return p.toString();
    }

    private static StreamStateHandle readStreamHandle(DataInputStream in, int version, Path base) throws IOException {
        byte kind = in.readByte();
        if (version < 4 && (kind == HANDLE_FILE_CRC32 || kind == HANDLE_INLINE_CRC32)
                || version < 5 && kind == HANDLE_RELATIVE_FILE_CRC32) {
            throw new IOException("stream handle kind " + kind + " does not exist in format version " + version);
        }
        return switch (kind) {
            case HANDLE_RELATIVE_FILE_CRC32 -> new FileStateHandle(resolveInside(base, readString(in)), readSize(in),
                    OptionalInt.of(in.readInt()));
            case HANDLE_FILE -> new FileStateHandle(readString(in), readSize(in));
            case HANDLE_INLINE -> new ByteStreamStateHandle(readInline(in));
            case HANDLE_FILE_CRC32 -> new FileStateHandle(readString(in), readSize(in), OptionalInt.of(in.readInt()));
            case HANDLE_INLINE_CRC32 -> new ByteStreamStateHandle(readInline(in), OptionalInt.of(in.readInt()));
            default -> throw new IOException("unknown stream handle kind " + kind);
        };
    }

    private static long readSize(DataInputStream in) throws IOException {
        long size = in.readLong();
        if (size < 0) {
            throw new IOException("negative state file size " + size);
        }
        return size;
    }

    private static byte[] readInline(DataInputStream in) throws IOException {
        byte[] data = new byte[readCount(in, "inline state length")];
        in.readFully(data);
        return data;
    }

    private static void writeLongs(long[] values, DataOutputStream out) throws IOException {
        out.writeInt(values.length);
        for (long v : values) {
            out.writeLong(v);
        }
    }

    private static long[] readLongs(DataInputStream in) throws IOException {
        int n = readCount(in, "offset count");
        long[] values = new long[n];
        for (int i = 0; i < n; i++) {
            values[i] = in.readLong();
        }
        return values;
    }

    private static void writeString(String s, DataOutputStream out) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readString(DataInputStream in) throws IOException {
        byte[] b = new byte[readCount(in, "string length")];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    /** Reads a count and rejects values that cannot fit in what is left of the body. */
    private static int readCount(DataInputStream in, String what) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > in.available()) {
            throw new IOException("implausible " + what + " " + n + " with " + in.available() + " bytes left");
        }
        return n;
    }

    private static IOException corrupt(String source, String problem) {
        return new IOException(message(source, problem));
    }

    private static IOException corrupt(String source, String problem, Throwable cause) {
        return new IOException(message(source, problem), cause);
    }

    private static String message(String source, String problem) {
        return "checkpoint metadata file " + source + " " + problem + "; the checkpoint cannot be used";
    }
}
