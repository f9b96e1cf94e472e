package io.weir.runtime.scheduler;

import io.weir.api.Row;
import io.weir.api.RowSerializer;
import io.weir.core.checkpoint.ChannelStateHandle;
import io.weir.core.checkpoint.CheckpointMetadata;
import io.weir.core.checkpoint.OperatorState;
import io.weir.core.checkpoint.OperatorSubtaskState;
import io.weir.core.job.JobEdge;
import io.weir.core.job.JobGraph;
import io.weir.core.job.JobVertex;
import io.weir.core.job.Partitioning;
import io.weir.core.state.KeyGroupAssignment;
import io.weir.core.state.KeyHashVersion;
import io.weir.runtime.checkpoint.ChannelStateWriter;
import io.weir.runtime.io.network.BufferPool;
import io.weir.runtime.io.network.ByteArrayDataInput;
import io.weir.runtime.io.network.KeySelector;
import io.weir.runtime.io.network.PipelinedSubpartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Replays the in-flight data of an unaligned checkpoint into the new links before any task runs
 * (PROTOCOL.md §6). The data of one old link (producer subtask {@code s} → consumer subtask
 * {@code j} of an edge) is the consumer's input channel state of that channel (buffers it read after
 * its snapshot, before that channel's barrier) followed by the producer's output state of that
 * subpartition (the buffers its barrier overtook): the order in which the records were emitted.
 *
 * <p>Where the old link still exists (neither end of the edge changed parallelism) its buffers are
 * replayed into the same link unchanged. Otherwise the records are redistributed over the new links,
 * each record exactly once:
 * <ul>
 * <li>hash edges: by key, to the new consumer subtask owning the record's key group, through the
 *     link of producer {@code s % p'} ({@code p'} the producer's new parallelism);</li>
 * <li>rebalance edges: to the same consumer {@code j} if the consumers kept their parallelism, else
 *     round-robin over the new consumer subtasks; through producer {@code s % p'};</li>
 * <li>forward edges: to the link {@code s % p'} (both ends have one parallelism);</li>
 * <li>broadcast edges: into link {@code (s % p', j)} if only the producer changed; a changed
 *     consumer parallelism is refused (each old consumer's copy cannot be matched to new ones).</li>
 * </ul>
 * Channel state that matches no link of the job is refused, never dropped. Job master thread only.
 */
final class ChannelStateRestore {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelStateRestore.class);

    /** New link → the buffers to replay into it, in order. */
    private final Map<LinkId, List<byte[]>> replay = new LinkedHashMap<>();
    private final Map<PipelinedSubpartition, BufferPool> pools = new HashMap<>();

    /** A link of the new deployment: edge, producer subtask, consumer subtask. */
    private record LinkId(JobEdge edge, int producer, int consumer) {
    }

    /**
     * Reads and assigns all channel state of {@code checkpoint} (nothing for an empty checkpoint).
     *
     * @param checkpoint the checkpoint restored from, if any
     * @param job the job being deployed (the same operators and edges as the checkpoint's)
     * @param networkEdges the edges between tasks, as deployed
     * @param maxParallelism key groups, for hash edges
     * @param bufferSize the size a redistributed buffer is filled up to, bytes
     * @throws IllegalStateException naming the edge or operator if channel state cannot be restored
     *         into this job (a broadcast edge whose consumer changed parallelism, or channel state for
     *         channels the job does not have)
     * @throws UncheckedIOException if a channel state stream cannot be read, or a record in it is not
     *         a row of the edge's schema
     */
    ChannelStateRestore(Optional<CheckpointMetadata> checkpoint, JobGraph job, List<JobEdge> networkEdges, int maxParallelism,
            int bufferSize) {
        if (checkpoint.isEmpty()) {
            return;
        }
        CheckpointMetadata metadata = checkpoint.get();
        Set<String> consumed = new HashSet<>();
        for (JobEdge e : networkEdges) {
            assignEdge(metadata, job, e, maxParallelism, bufferSize, consumed);
        }
        checkAllConsumed(metadata, consumed);
    }

    /** Records the producer side of a task: its {@code subpartitions} replay restored buffers from {@code pool}. */
    void addPool(List<PipelinedSubpartition> subpartitions, BufferPool pool) {
        for (PipelinedSubpartition sp : subpartitions) {
            pools.put(sp, pool);
        }
    }

    /**
     * Queues the assigned buffers into their links.
     *
     * @param links per network edge, {@code [producer][consumer]} → link (null where the edge has none)
     */
    void replay(Map<JobEdge, PipelinedSubpartition[][]> links) {
        for (Map.Entry<LinkId, List<byte[]>> e : replay.entrySet()) {
            LinkId id = e.getKey();
            PipelinedSubpartition sp = links.get(id.edge())[id.producer()][id.consumer()];
            BufferPool pool = pools.get(sp);
            for (byte[] b : e.getValue()) {
                sp.addRestoredBuffer(b, pool);
            }
        }
    }

    /** @return the buffers assigned to a new link (for tests) */
    List<byte[]> assigned(JobEdge edge, int producer, int consumer) {
        return replay.getOrDefault(new LinkId(edge, producer, consumer), List.of());
    }

    private void assignEdge(CheckpointMetadata metadata, JobGraph job, JobEdge e, int maxParallelism, int bufferSize,
            Set<String> consumed) {
        OperatorState producerState = metadata.operatorStates().get(e.source());
        OperatorState consumerState = metadata.operatorStates().get(e.target());
        if (producerState == null || consumerState == null) {
            return; // an end the checkpoint does not know has no channel state on this edge; leftovers are caught later
        }
        JobVertex producer = job.vertex(e.source());
        JobVertex consumer = job.vertex(e.target());
        int p0 = producerState.parallelism();
        int q0 = consumerState.parallelism();
        int p1 = producer.parallelism();
        int q1 = consumer.parallelism();
        boolean forward = e.partitioning() == Partitioning.FORWARD;
        int inputBase = inputBase(metadata, job, e);
        int outputBase = outputBase(metadata, job, e);
        boolean unchanged = p0 == p1 && q0 == q1;
        Redistributor redistributor = unchanged ? null : new Redistributor(e, producer, q0, q1, maxParallelism, bufferSize,
                metadata.keyHashVersion());
        for (int s = 0; s < p0; s++) {
            for (int j = 0; j < q0; j++) {
                if (forward && s != j) {
                    continue;
                }
                List<byte[]> buffers = new ArrayList<>();
                int inChannel = inputBase + (forward ? 0 : s);
                int outChannel = outputBase + (forward ? 0 : j);
                read(consumerState, j, inChannel, true, buffers, consumed);
                read(producerState, s, outChannel, false, buffers, consumed);
                if (buffers.isEmpty()) {
                    continue;
                }
                if (unchanged) {
                    replay.computeIfAbsent(new LinkId(e, s, j), k -> new ArrayList<>()).addAll(buffers);
                } else if (e.partitioning() == Partitioning.BROADCAST && q0 != q1) {
                    throw new IllegalStateException("the checkpoint holds in-flight data of broadcast edge " + e.source() + " -> "
                            + e.target() + " (unaligned checkpoint " + metadata.checkpointId() + "), which cannot be assigned to '"
                            + e.target() + "' with another parallelism: restore with parallelism " + q0 + " for '" + e.target()
                            + "', or from an aligned checkpoint or savepoint");
                } else {
                    redistributor.redistribute(s % p1, j, buffers);
                }
            }
        }
        if (redistributor != null) {
            redistributor.finish();
            LOG.info("Redistributed in-flight data of edge {} -> {} ({}) from parallelism {} -> {} to {} -> {} ({} records)",
                    e.source(), e.target(), e.partitioning(), p0, q0, p1, q1, redistributor.records);
        }
    }

    /** Re-partitions the records of old links of one edge into buffers of new links. */
    private final class Redistributor {
        private final JobEdge edge;
        private final int consumers;
        private final boolean consumersUnchanged;
        private final int maxParallelism;
        private final int bufferSize;
        private final RowSerializer serializer;
        private final KeySelector keys;
        private final ByteArrayDataInput in = new ByteArrayDataInput();
        /** New link → the buffer being filled. */
        private final Map<LinkId, ByteArrayOutputStream> open = new LinkedHashMap<>();
        /** Job master thread only (restore runs in the deployment). */
        private int nextRoundRobin;
        /** Job master thread only. */
        long records;

        /** Hash edges re-partition with {@code keyHashVersion}: the checkpoint's, which the restored job keeps. */
        Redistributor(JobEdge edge, JobVertex producer, int oldConsumers, int consumers, int maxParallelism, int bufferSize,
                KeyHashVersion keyHashVersion) {
            this.edge = edge;
            this.consumers = consumers;
            this.consumersUnchanged = oldConsumers == consumers;
            this.maxParallelism = maxParallelism;
            this.bufferSize = bufferSize;
            this.serializer = new RowSerializer(edge.schemaFrom(producer));
            this.keys = edge.partitioning() == Partitioning.HASH ? new KeySelector(edge.schemaFrom(producer), edge.keyFields(),
                    keyHashVersion) : null;
        }

        /** @param producer the new producer subtask; {@code oldConsumer} the consumer the buffers were sent to */
        void redistribute(int producer, int oldConsumer, List<byte[]> buffers) {
            for (byte[] b : buffers) {
                int pos = 0;
                while (pos < b.length) {
                    int len = ((b[pos] & 0xff) << 24) | ((b[pos + 1] & 0xff) << 16) | ((b[pos + 2] & 0xff) << 8) | (b[pos + 3] & 0xff);
                    if (len < 0 || pos + 4 + len > b.length) {
                        throw new UncheckedIOException(new IOException("in-flight data of edge " + edge.source() + " -> "
                                + edge.target() + " is corrupt: a record of " + len + " bytes at " + pos + " of a " + b.length
                                + "-byte buffer"));
                    }
                    int consumer = switch (edge.partitioning()) {
                        case HASH -> KeyGroupAssignment.subtaskForKeyGroup(
                                keys.hashVersion().keyGroupForHash(keys.hash(row(b, pos + 4, len)), maxParallelism),
                                maxParallelism, consumers);
                        case REBALANCE -> consumersUnchanged ? oldConsumer : nextRoundRobin++ % consumers;
                        case FORWARD -> producer;
                        case BROADCAST -> oldConsumer;
                    };
                    append(new LinkId(edge, producer, consumer), b, pos, 4 + len);
                    records++;
                    pos += 4 + len;
                }
            }
        }

        private Row row(byte[] b, int offset, int len) {
            in.reset(b, offset, len);
            try {
                return serializer.deserialize(in);
            } catch (IOException | RuntimeException ex) {
                throw new UncheckedIOException(new IOException("in-flight data of edge " + edge.source() + " -> " + edge.target()
                        + " holds a record that is not a row of its schema: " + ex.getMessage(), ex));
            }
        }

        private void append(LinkId link, byte[] b, int offset, int length) {
            ByteArrayOutputStream buffer = open.computeIfAbsent(link, k -> new ByteArrayOutputStream(bufferSize));
            if (buffer.size() > 0 && buffer.size() + length > bufferSize) {
                flush(link, buffer);
            }
            buffer.write(b, offset, length);
        }

        private void flush(LinkId link, ByteArrayOutputStream buffer) {
            replay.computeIfAbsent(link, k -> new ArrayList<>()).add(buffer.toByteArray());
            buffer.reset();
        }

        void finish() {
            open.forEach((link, buffer) -> {
                if (buffer.size() > 0) {
                    flush(link, buffer);
                }
            });
            open.clear();
        }
    }

    /** The first input channel of edge {@code e} in the old consumer's gate: channels of earlier input edges come first. */
    private static int inputBase(CheckpointMetadata metadata, JobGraph job, JobEdge e) {
        int base = 0;
        for (JobEdge in : job.inputsOf(e.target())) {
            if (in.equals(e)) {
                return base;
            }
            base += in.partitioning() == Partitioning.FORWARD ? 1 : oldParallelism(metadata, job, in.source());
        }
        throw new IllegalStateException("edge " + e + " is not an input of " + e.target());
    }

    /** The first subpartition of edge {@code e} in the old producer's writers: subpartitions of earlier output edges come first. */
    private static int outputBase(CheckpointMetadata metadata, JobGraph job, JobEdge e) {
        int base = 0;
        for (JobEdge out : job.outputsOf(e.source())) {
            if (out.equals(e)) {
                return base;
            }
            base += out.partitioning() == Partitioning.FORWARD ? 1 : oldParallelism(metadata, job, out.target());
        }
        throw new IllegalStateException("edge " + e + " is not an output of " + e.source());
    }

    private static int oldParallelism(CheckpointMetadata metadata, JobGraph job, String vertex) {
        OperatorState os = metadata.operatorStates().get(vertex);
        return os != null ? os.parallelism() : job.vertex(vertex).parallelism();
    }

    private static void read(OperatorState state, int subtask, int channel, boolean input, List<byte[]> into, Set<String> consumed) {
        OperatorSubtaskState s = state.subtaskStates().get(subtask);
        if (s == null) {
            return;
        }
        for (ChannelStateHandle h : input ? s.inputChannelState() : s.resultSubpartitionState()) {
            if (h.channel() == channel) {
                consumed.add(key(state.operatorId(), subtask, input, channel));
                try {
                    into.addAll(ChannelStateWriter.read(h));
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read in-flight data of operator '" + state.operatorId() + "' subtask "
                            + subtask + ": " + e.getMessage(), e);
                }
            }
        }
    }

    private static void checkAllConsumed(CheckpointMetadata metadata, Set<String> consumed) {
        for (OperatorState os : metadata.operatorStates().values()) {
            for (Map.Entry<Integer, OperatorSubtaskState> s : os.subtaskStates().entrySet()) {
                for (ChannelStateHandle h : s.getValue().inputChannelState()) {
                    requireConsumed(metadata, consumed, os.operatorId(), s.getKey(), true, h.channel());
                }
                for (ChannelStateHandle h : s.getValue().resultSubpartitionState()) {
                    requireConsumed(metadata, consumed, os.operatorId(), s.getKey(), false, h.channel());
                }
            }
        }
    }

    private static void requireConsumed(CheckpointMetadata metadata, Set<String> consumed, String operator, int subtask,
            boolean input, int channel) {
        if (!consumed.contains(key(operator, subtask, input, channel))) {
            throw new IllegalStateException("checkpoint " + metadata.checkpointId() + " holds in-flight data of "
                    + (input ? "input channel " : "output subpartition ") + channel + " of operator '" + operator + "' subtask "
                    + subtask + ", which no edge of this job has (operators or edges changed since the unaligned checkpoint); "
                    + "restore it with the job it was taken with, or from an aligned checkpoint or savepoint");
        }
    }

    private static String key(String operator, int subtask, boolean input, int channel) {
        return operator + '\u0000' + subtask + (input ? "/in/" : "/out/") + channel;
    }
}
