package io.weir.runtime;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.KeyGroupsStateHandle;
import io.weir.core.checkpoint.OperatorState;
import io.weir.core.checkpoint.OperatorStateHandle;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.config.Configuration;
import io.weir.core.coordination.CompletedCheckpointStats;
import io.weir.core.engine.JobStatus;
import io.weir.core.state.KeyHashVersion;
import io.weir.runtime.engine.LocalEngine;
import io.weir.storage.fs.MetadataSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A job whose state was written with the {@link KeyHashVersion#LEGACY} key placement (every checkpoint and
 * savepoint from before format version 7) keeps that placement for its life: across a failure, a restore and
 * rescaling the keyed aggregate 2 → 3, with the heap and the RocksDB backend, aligned and unaligned (in-flight
 * data re-partitioned by the legacy placement). Run 1 starts from a savepoint of the legacy placement that holds
 * no state (the way a job restored from an old savepoint starts), counts flights per origin (a one-field STRING
 * key, which the two placements put in different key groups) and fails for good after a checkpoint; run 2
 * resumes from that checkpoint with 3 aggregate subtasks. Exactly-once output against the ground truth computed
 * from the data file ({@link FlightData}) shows that every key's state was found again and every record routed to
 * the subtask owning its key group: records routed by another placement would reach a subtask whose state does
 * not hold their key and count it from zero.
 */
class LegacyKeyPlacementRestoreTest {
    private static final int LIMIT = 3000;

    @TempDir
    Path tmp;
    private LocalEngine engine;

    @BeforeEach
    void startEngine() {
        engine = LocalEngine.fromServiceLoader(getClass().getClassLoader(), Configuration.empty());
    }

    @AfterEach
    void stopEngine() {
        engine.close();
    }

    /** file source (p=1) → hash by origin → count and average delay (p={@code aggregates}) → rebalance → 2PC file sink (p=2). */
    private String job(int aggregates) {
        return """
                {"name": "flight-delays",
                 "config": {"execution.checkpointing.dir": "%s"},
                 "operators": [
                   {"id": "flights", "type": "file", "parallelism": 1, "config": {"path": "%s", "limit": %d,
                     "schema": {"date": "string", "delay": "long", "distance": "long", "origin": "string", "destination": "string"}}},
                   {"id": "per-origin", "type": "keyed-aggregate", "parallelism": %d,
                    "inputs": [{"from": "flights", "partitioning": "hash", "keys": ["origin"]}],
                    "config": {"key": ["origin"], "sleep-ms-per-record": 1,
                               "aggregates": [{"fn": "count", "as": "flights"}, {"fn": "avg", "field": "delay", "as": "avg_delay"}]}},
                   {"id": "out", "type": "file-2pc", "parallelism": 2, "inputs": [{"from": "per-origin", "partitioning": "rebalance"}], "config": {"path": "%s"}}
                 ]}
                """.formatted(tmp.resolve("checkpoints"), FlightData.DATA, LIMIT, aggregates, tmp.resolve("out"));
    }

    private static Map<String, String> config(String backend, boolean unaligned) {
        return new HashMap<>(Map.of(
                "state.backend.type", backend,
                "execution.checkpointing.interval", "30 ms",
                "taskmanager.memory.segment-size", "2048",
                "execution.checkpointing.unaligned.enabled", String.valueOf(unaligned)));
    }

    /**
     * @return the directory of a savepoint of job flight-delays placed with LEGACY, taken before any record was read:
     *         the file source's state only, at record 0, in the file source's earlier state format (operator list
     *         state "offset" = [0L]), written by hand in the heap operator state layout (magic "WHOS", format 1, then
     *         per element its length and bytes; the handle lists each element's offset)
     */
    private Path emptyLegacySavepoint() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("legacy-savepoint"));
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
            out.writeInt(0x57484F53);
            out.writeInt(1);
            out.writeInt(8);
            out.writeLong(0);
        }
        OperatorState source = new OperatorState("flights", 1, 128, Map.of(0, new OperatorSubtaskState(
                List.of(new OperatorStateHandle(Map.of("offset", new long[] {8}),
                        new StreamStateHandle.ByteStreamStateHandle(bytes.toByteArray()))), List.of())));
        CheckpointMetadata empty = new CheckpointMetadata(1, "flight-delays", 1_600_000_000_000L, false,
                Map.of("flights", source), List.of(), KeyHashVersion.LEGACY);
        Files.write(dir.resolve("_metadata"), new MetadataSerializer().serialize(empty, dir));
        return dir;
    }

    private CheckpointMetadata metadataOf(CompletedCheckpointStats cp) throws Exception {
        Path file = tmp.resolve("checkpoints").resolve("flight-delays").resolve("chk-" + cp.checkpointId()).resolve("_metadata");
        if (!Files.exists(file)) {
            try (var found = Files.walk(tmp.resolve("checkpoints"))) {
                file = found.filter(p -> p.endsWith("chk-" + cp.checkpointId() + "/_metadata")
                        || p.toString().endsWith("chk-" + cp.checkpointId() + java.io.File.separator + "_metadata"))
                        .findFirst().orElseThrow(() -> new AssertionError("no _metadata of checkpoint " + cp.checkpointId()));
            }
        }
        return new MetadataSerializer().deserialize(Files.readAllBytes(file), file.toString());
    }

    /**
     * The key groups holding per-origin state in a heap checkpoint (read in the documented layout, docs/checkpoint-format.md
     * "Heap keyed state": per key group its number and the number of states with entries there) must all be key
     * groups LEGACY gives some origin of the input, and one at least must be a key group FLINK gives no origin:
     * state the tasks placed with Flink's placement fails here even if the metadata says LEGACY.
     */
    private static void assertKeyedStateIsPlacedAsLegacyPlaces(CheckpointMetadata metadata) throws Exception {
        Schema keySchema = Schema.builder().field("origin", FieldType.STRING).build();
        Set<Integer> legacyGroups = new TreeSet<>();
        Set<Integer> flinkGroups = new TreeSet<>();
        for (String origin : FlightData.groundTruth(LIMIT).keySet()) {
            legacyGroups.add(KeyHashVersion.LEGACY.keyGroupFor(new Row(keySchema, origin), 128));
            flinkGroups.add(KeyHashVersion.FLINK.keyGroupFor(new Row(keySchema, origin), 128));
        }
        Set<Integer> withState = new TreeSet<>();
        for (OperatorSubtaskState subtask : metadata.operatorStates().get("per-origin").subtaskStates().values()) {
            for (KeyGroupsStateHandle h : subtask.keyedState()) {
                byte[] stream;
                try (InputStream in = h.delegate().open()) {
                    stream = in.readAllBytes();
                }
                for (long offset : h.offsets()) {
                    DataInputStream in = new DataInputStream(new ByteArrayInputStream(stream, (int) offset, stream.length - (int) offset));
                    int keyGroup = in.readInt();
                    if (in.readInt() > 0) {
                        withState.add(keyGroup);
                    }
                }
            }
        }
        assertThat(withState).as("key groups with state").isNotEmpty().isSubsetOf(legacyGroups);
        Set<Integer> notFlinks = new TreeSet<>(withState);
        notFlinks.removeAll(flinkGroups);
        assertThat(notFlinks).as("key groups with state that Flink's placement would not use").isNotEmpty();
    }

    @ParameterizedTest(name = "{0}, unaligned {1}")
    @CsvSource({"hashmap, false", "rocksdb, false", "hashmap, true"})
    void stateOfTheLegacyPlacementRestoresRescaledTwoToThreeExactlyOnce(String backend, boolean unaligned) throws Exception {
        Map<String, String> first = config(backend, unaligned);
        first.putAll(Map.of(
                "execution.savepoint.path", emptyLegacySavepoint().toString(),
                "restart-strategy.fixed-delay.attempts", "0",
                "debug.inject-failure.operator", "per-origin",
                "debug.inject-failure.after-records", "800",
                "debug.inject-failure.after-checkpoints", "1"));
        JobRun run1 = JobRun.run(engine, job(2), tmp, first);
        assertThat(run1.result.status()).isEqualTo(JobStatus.FAILED);
        assertThat(run1.completed).as("checkpoints of run 1").isNotEmpty();
        CompletedCheckpointStats last = run1.completed.get(run1.completed.size() - 1);
        assertThat(metadataOf(last).keyHashVersion()).as("run 1 keeps the savepoint's placement").isEqualTo(KeyHashVersion.LEGACY);
        if (backend.equals("hashmap")) {
            assertKeyedStateIsPlacedAsLegacyPlaces(metadataOf(last));
        }
        if (unaligned) {
            assertThat(last.persistedDataBytes()).as("in-flight bytes in the checkpoint restored from").isPositive();
        }

        JobRun run2 = JobRun.run(engine, job(3), tmp, config(backend, unaligned));

        assertThat(run2.result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(run2.restoredFrom).first().isEqualTo(last.checkpointId());
        FlightData.assertExactlyOnce(tmp.resolve("out"), FlightData.groundTruth(LIMIT));
        assertThat(run2.completed).as("checkpoints of run 2").isNotEmpty();
        assertThat(metadataOf(run2.completed.get(run2.completed.size() - 1)).keyHashVersion())
                .as("run 2, rescaled, keeps the placement too").isEqualTo(KeyHashVersion.LEGACY);
    }
}
