package io.weir.rest.node;

import io.weir.core.engine.JobStatus;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class JobRegistryTest {
    private static final String A = "0123456789abcdef0123456789abcdef";
    private static final String B = "fedcba9876543210fedcba9876543210";

    @TempDir
    Path dir;

    private JobRegistry registry() {
        return new JobRegistry(dir.resolve("jobs"), JsonProvider.provider());
    }

    private static JobRecord record(String id, JobStatus status) {
        return new JobRecord(id, "job-" + id.charAt(0), "{\"name\": \"x\"}", "/data", Map.of("a.b", "1", "c", "two"),
                status, 1_000L, status.isTerminal() ? 2_000L : -1L, status == JobStatus.FAILED ? "boom: broken" : null);
    }

    @Test
    void aWrittenRecordReadsBackFieldForField() {
        JobRecord written = record(A, JobStatus.FAILED);
        registry().write(written);

        assertThat(registry().load()).singleElement().satisfies(s -> {
            assertThat(s.readable()).isTrue();
            assertThat(s.record()).isEqualTo(written);
        });
        assertThat(dir.resolve("jobs").resolve(A).resolve("job.json")).exists();
    }

    @Test
    void theLatestCheckpointAndSavepointReadBackAndAPathMayBeUnknown() {
        JobRecord written = record(A, JobStatus.FINISHED).withLatest(
                new JobRecord.Latest(7, null, 1_500L, 40, 5714, 0),
                new JobRecord.Latest(8, "/data/savepoints/savepoint-x-0a0b0c", 1_600L, 90, 5714, 128));
        registry().write(written);

        assertThat(registry().load()).singleElement().satisfies(s -> assertThat(s.record()).isEqualTo(written));
    }

    @Test
    void aRewriteReplacesTheRecordAndLeavesNoTemporaryFile() throws Exception {
        JobRegistry registry = registry();
        registry.write(record(A, JobStatus.RUNNING));
        registry.write(record(A, JobStatus.CANCELED));

        assertThat(registry.load()).singleElement().extracting(s -> s.record().status()).isEqualTo(JobStatus.CANCELED);
        try (var files = Files.list(dir.resolve("jobs").resolve(A))) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("job.json");
        }
    }

    @Test
    void aTornTemporaryFileFromACrashDoesNotReplaceTheRecord() throws Exception {
        JobRegistry registry = registry();
        registry.write(record(A, JobStatus.RUNNING));
        // a crash in the middle of the next write leaves a partial temporary file beside job.json
        Files.writeString(dir.resolve("jobs").resolve(A).resolve("job.json.tmp"), "{\"format\": 1, \"id\": \"01");

        assertThat(registry.load()).singleElement().extracting(s -> s.record().status()).isEqualTo(JobStatus.RUNNING);
    }

    @Test
    void aCorruptRecordIsUnreadableWithTheFileAndTheOthersAreFine() throws Exception {
        JobRegistry registry = registry();
        registry.write(record(A, JobStatus.RUNNING));
        registry.write(record(B, JobStatus.RUNNING));
        Path corrupt = dir.resolve("jobs").resolve(A).resolve("job.json");
        Files.write(corrupt, "{\"format\": 1, \"id\": ".getBytes(StandardCharsets.UTF_8));

        var stored = registry.load();

        assertThat(stored).hasSize(2);
        assertThat(stored.get(0).id()).isEqualTo(A);
        assertThat(stored.get(0).readable()).isFalse();
        assertThat(stored.get(0).error()).contains("cannot read the registry record").contains(corrupt.toString());
        assertThat(stored.get(1).readable()).isTrue();
        assertThat(stored.get(1).record().id()).isEqualTo(B);
    }

    @Test
    void aMissingFieldOrFileIsNamed() throws Exception {
        JobRegistry registry = registry();
        registry.write(record(A, JobStatus.RUNNING));
        Path file = dir.resolve("jobs").resolve(A).resolve("job.json");
        Files.writeString(file, Files.readString(file).replace("\"spec\"", "\"spek\""));
        Files.createDirectories(dir.resolve("jobs").resolve(B));

        var stored = registry.load();

        assertThat(stored.get(0).error()).contains("field 'spec' is missing");
        assertThat(stored.get(1).error()).contains("the file is missing");
    }

    @Test
    void otherEntriesOfTheDirectoryAreIgnoredAndNoDirectoryMeansNoJobs() throws Exception {
        assertThat(registry().load()).isEmpty();
        Files.createDirectories(dir.resolve("jobs").resolve("not-a-job"));
        assertThat(registry().load()).isEmpty();
    }
}
