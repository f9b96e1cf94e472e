package io.weir.rest.node;

import io.weir.core.engine.JobStatus;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The node's job registry on disk: one {@code <jobs-dir>/<job-id>/job.json} per job. Each write
 * goes to a temporary file that is fsynced and then renamed over {@code job.json} (and the
 * directory fsynced), so a crash at any point leaves either the old or the new record, never a
 * torn one.
 *
 * <p>Thread-safe for writes of different jobs; writes of one job must be serialized by the caller
 * (NodeJobs does this per job).
 */
public final class JobRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(JobRegistry.class);
    /** The record file inside a job's directory. */
    public static final String FILE = "job.json";
    private static final String TEMP = FILE + ".tmp";
    private static final int FORMAT = 1;

    private final Path directory;
    private final JsonProvider json;

    /** One job directory read back: its record, or why it could not be read. */
    public record Stored(String id, JobRecord record, String error) {
        /** @return whether the record was read */
        public boolean readable() {
            return record != null;
        }
    }

    /**
     * @param directory the registry directory (created on first write), e.g. {@code <data-dir>/jobs}
     * @param json the JSON-P provider
     */
    public JobRegistry(Path directory, JsonProvider json) {
        this.directory = directory.toAbsolutePath().normalize();
        this.json = json;
    }

    /** @return the registry directory (absolute) */
    public Path directory() {
        return directory;
    }

    /**
     * Writes a job's record atomically, replacing the previous one.
     *
     * @param record the record
     * @throws UncheckedIOException if the file cannot be written, naming it
     */
    public void write(JobRecord record) {
        Path dir = directory.resolve(record.id());
        Path temp = dir.resolve(TEMP);
        Path target = dir.resolve(FILE);
        try {
            Files.createDirectories(dir);
            byte[] bytes = toJson(record).getBytes(StandardCharsets.UTF_8);
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer buffer = ByteBuffer.wrap(bytes);
                while (buffer.hasRemaining()) {
                    ch.write(buffer);
                }
                ch.force(true);
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("the file system of " + dir + " cannot rename atomically", e);
            }
            fsyncDirectory(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the registry record of job " + record.id() + " to " + target
                    + ": " + e.getMessage(), e);
        }
    }

    private static void fsyncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // some platforms cannot open a directory for fsync; the rename itself is still atomic
            LOG.debug("Cannot fsync directory {}: {}", dir, e.toString());
        }
    }

    /**
     * Reads every job directory of the registry. A directory whose record is missing, not JSON or
     * lacks a field comes back {@linkplain Stored#readable() unreadable} with a message naming the
     * file and the problem; the others are unaffected. Entries that are not job directories (name
     * not 32 hex digits) are skipped.
     *
     * @return the stored jobs, in directory-name order; empty if the registry directory does not exist
     * @throws UncheckedIOException if the registry directory cannot be listed
     */
    public List<Stored> load() {
        List<Stored> out = new ArrayList<>();
        if (!Files.isDirectory(directory)) {
            return out;
        }
        List<Path> dirs = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory)) {
            for (Path p : stream) {
                if (Files.isDirectory(p) && p.getFileName().toString().matches("[0-9a-f]{32}")) {
                    dirs.add(p);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the job registry " + directory + ": " + e.getMessage(), e);
        }
        dirs.sort(null);
        for (Path dir : dirs) {
            String id = dir.getFileName().toString();
            Path file = dir.resolve(FILE);
            try {
                JobRecord record = fromJson(Files.readString(file, StandardCharsets.UTF_8));
                if (!record.id().equals(id)) {
                    throw new IllegalArgumentException("its id " + record.id() + " differs from its directory name");
                }
                out.add(new Stored(id, record, null));
            } catch (IOException | JsonException | ClassCastException | IllegalArgumentException | NullPointerException e) {
                String why = e instanceof java.nio.file.NoSuchFileException ? "the file is missing" : e.getMessage();
                out.add(new Stored(id, null, "cannot read the registry record " + file + ": " + why));
            }
        }
        return out;
    }

    String toJson(JobRecord r) {
        JsonObjectBuilder overrides = json.createObjectBuilder();
        r.overrides().forEach(overrides::add);
        JsonObjectBuilder b = json.createObjectBuilder()
                .add("format", FORMAT)
                .add("id", r.id())
                .add("name", r.name())
                .add("status", r.status().name())
                .add("submit-time", r.submitTime())
                .add("end-time", r.endTime())
                .add("base-dir", r.baseDirectory())
                .add("overrides", overrides)
                .add("spec", r.spec());
        if (r.failure() != null) {
            b.add("failure", r.failure());
        } else {
            b.addNull("failure");
        }
        addLatest(b, "latest-checkpoint", r.latestCheckpoint());
        addLatest(b, "latest-savepoint", r.latestSavepoint());
        return b.build().toString();
    }

    private void addLatest(JsonObjectBuilder b, String field, JobRecord.Latest latest) {
        if (latest == null) {
            return;
        }
        JsonObjectBuilder o = json.createObjectBuilder()
                .add("id", latest.checkpointId())
                .add("trigger-timestamp", latest.triggerTimestamp())
                .add("duration-ms", latest.durationMs())
                .add("size-bytes", latest.sizeBytes())
                .add("persisted-bytes", latest.persistedBytes());
        if (latest.path() != null) {
            o.add("path", latest.path());
        }
        b.add(field, o);
    }

    /** @return the optional {@code field} (absent or null: null) */
    private static JobRecord.Latest latest(JsonObject record, String field) {
        JsonValue v = record.get(field);
        if (v == null || v.equals(JsonValue.NULL)) {
            return null;
        }
        if (v.getValueType() != JsonValue.ValueType.OBJECT) {
            throw new IllegalArgumentException("field '" + field + "' is not an object");
        }
        JsonObject o = v.asJsonObject();
        JsonValue path = o.get("path");
        return new JobRecord.Latest(number(o, "id"), path == null || path.equals(JsonValue.NULL) ? null : string(o, "path"),
                number(o, "trigger-timestamp"), number(o, "duration-ms"), number(o, "size-bytes"), number(o, "persisted-bytes"));
    }

    JobRecord fromJson(String text) {
        JsonObject o;
        try (JsonReader reader = json.createReader(new StringReader(text))) {
            o = reader.readObject();
        }
        int format = required(o, "format").equals(JsonValue.NULL) ? -1 : o.getInt("format");
        if (format != FORMAT) {
            throw new IllegalArgumentException("unknown format " + format + " (this node reads format " + FORMAT + ")");
        }
        Map<String, String> overrides = new LinkedHashMap<>();
        required(o, "overrides").asJsonObject().forEach((k, v) -> overrides.put(k, ((jakarta.json.JsonString) v).getString()));
        String statusName = string(o, "status");
        JobStatus status;
        try {
            status = JobStatus.valueOf(statusName);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown status '" + statusName + "'", e);
        }
        JsonValue failure = o.get("failure");
        return new JobRecord(string(o, "id"), string(o, "name"), string(o, "spec"), string(o, "base-dir"), overrides,
                status, number(o, "submit-time"), number(o, "end-time"),
                failure == null || failure.equals(JsonValue.NULL) ? null : o.getString("failure"),
                latest(o, "latest-checkpoint"), latest(o, "latest-savepoint"));
    }

    private static JsonValue required(JsonObject o, String field) {
        JsonValue v = o.get(field);
        if (v == null) {
            throw new IllegalArgumentException("field '" + field + "' is missing");
        }
        return v;
    }

    private static String string(JsonObject o, String field) {
        JsonValue v = required(o, field);
        if (v.getValueType() != JsonValue.ValueType.STRING) {
            throw new IllegalArgumentException("field '" + field + "' is not a string");
        }
        return o.getString(field);
    }

    private static long number(JsonObject o, String field) {
        JsonValue v = required(o, field);
        if (v.getValueType() != JsonValue.ValueType.NUMBER) {
            throw new IllegalArgumentException("field '" + field + "' is not a number");
        }
        return o.getJsonNumber(field).longValueExact();
    }
}
