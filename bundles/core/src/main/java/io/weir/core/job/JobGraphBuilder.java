package io.weir.core.job;

import io.weir.api.Schema;
import io.weir.api.plugin.OperatorFactory;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.plugin.SourceFactory;
import io.weir.core.config.Configuration;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The graph-building stage of {@link JobSpecParser}: the operators read and configured into a {@link JobGraph} —
 * inputs naming existing non-sink operators, no cycles, schemas flowing along the edges (side outputs included),
 * forward edges of equal parallelism, hash keys present upstream, keyed operators fed by hash edges on their own
 * keys, each plugin's own validation with no setting it did not read, and every non-sink consumed.
 *
 * <p>Stateless; thread-safe.
 */
final class JobGraphBuilder {
    private JobGraphBuilder() {
    }

    /**
     * Checks that every input names an operator of this job that has an output (not a sink).
     *
     * @throws InvalidJobException naming the input's {@code from}
     */
    static void checkInputs(Map<String, RawOperator> byId) throws InvalidJobException {
        for (RawOperator op : byId.values()) {
            for (RawInput in : op.inputs) {
                RawOperator from = byId.get(in.from);
                if (from == null) {
                    throw new InvalidJobException(in.path + ".from names '" + in.from + "', which is not an operator of this job; known: " + byId.keySet());
                }
                if (from.kind == VertexKind.SINK) {
                    throw new InvalidJobException(in.path + ".from names sink '" + in.from + "'; a sink has no output");
                }
            }
        }
    }

    /**
     * Builds the validated graph, its vertices in topological order.
     *
     * @param name the job's name
     * @param config the job's checked configuration
     * @param byId the operators by id, in file order, their inputs checked ({@link #checkInputs})
     * @throws InvalidJobException naming the first operator or input that makes the graph invalid
     */
    static JobGraph build(String name, Configuration config, Map<String, RawOperator> byId) throws InvalidJobException {
        return buildGraph(name, config, topologicalOrder(byId), byId);
    }

    private static List<RawOperator> topologicalOrder(Map<String, RawOperator> byId) throws InvalidJobException {
        Map<String, Integer> indegree = new HashMap<>();
        Map<String, List<String>> consumers = new HashMap<>();
        for (RawOperator op : byId.values()) {
            indegree.put(op.id, op.inputs.size());
            for (RawInput in : op.inputs) {
                consumers.computeIfAbsent(in.from, k -> new ArrayList<>()).add(op.id);
            }
        }
        Deque<String> ready = new ArrayDeque<>();
        for (RawOperator op : byId.values()) {
            if (op.inputs.isEmpty()) {
                ready.add(op.id);
            }
        }
        List<RawOperator> order = new ArrayList<>();
        while (!ready.isEmpty()) {
            String id = ready.poll();
            order.add(byId.get(id));
            for (String c : consumers.getOrDefault(id, List.of())) {
                if (indegree.merge(c, -1, Integer::sum) == 0) {
                    ready.add(c);
                }
            }
        }
        if (order.size() < byId.size()) {
            throw new InvalidJobException("operators form a cycle through " + onCycles(byId, order)
                    + "; a job must be a directed acyclic graph: check their inputs");
        }
        return order;
    }

    /**
     * @param order the operators Kahn's algorithm could order (not on or downstream of a cycle)
     * @return the ids, in job-file order, of the operators on a cycle or between cycles: of the
     *         unordered operators (each has an input among them), repeatedly drops those that no
     *         remaining operator consumes, i.e. those only downstream of a cycle
     */
    private static List<String> onCycles(Map<String, RawOperator> byId, List<RawOperator> order) {
        Set<String> remaining = new LinkedHashSet<>(byId.keySet());
        order.forEach(o -> remaining.remove(o.id));
        boolean dropped = true;
        while (dropped) {
            Set<String> consumed = new HashSet<>();
            for (String id : remaining) {
                for (RawInput in : byId.get(id).inputs) {
                    consumed.add(in.from);
                }
            }
            dropped = remaining.retainAll(consumed);
        }
        return new ArrayList<>(remaining);
    }

    private static JobGraph buildGraph(String name, Configuration config, List<RawOperator> order, Map<String, RawOperator> byId)
            throws InvalidJobException {
        Map<String, Schema> outputs = new HashMap<>();
        Map<String, Schema> inputsOf = new HashMap<>();
        List<JobVertex> vertices = new ArrayList<>();
        List<JobEdge> edges = new ArrayList<>();
        Set<String> consumed = new HashSet<>();
        for (RawOperator op : order) {
            Schema input = null;
            boolean hash = false;
            for (RawInput in : op.inputs) {
                consumed.add(in.from);
                Schema upstream = outputs.get(in.from);
                RawOperator from = byId.get(in.from);
                if (in.output != null) {
                    List<String> declared = from.kind == VertexKind.OPERATOR
                            ? ((OperatorFactory) from.binding.factory()).sideOutputs(from.config) : List.of();
                    if (!declared.contains(in.output)) {
                        throw new InvalidJobException(in.path + ".output '" + in.output + "' is not a side output of '" + in.from
                                + "' (" + from.type + "); its side outputs: " + declared
                                + (from.type.equals("window-aggregate") ? " (set its late-output)" : ""));
                    }
                    upstream = inputsOf.get(in.from); // a side output carries the producer's input rows
                }
                if (input != null && !input.equals(upstream)) {
                    throw new InvalidJobException(in.path + " delivers rows " + upstream + " but an earlier input delivers "
                            + input + "; all inputs of an operator must have the same schema");
                }
                input = upstream;
                if (in.partitioning == Partitioning.FORWARD && from.parallelism != op.parallelism) {
                    throw new InvalidJobException(in.path + " is a forward edge from '" + in.from + "' (parallelism "
                            + from.parallelism + ") to '" + op.id + "' (parallelism " + op.parallelism
                            + "); use equal parallelism or \"partitioning\": \"rebalance\"");
                }
                for (String k : in.keys) {
                    if (upstream.indexOf(k) < 0) {
                        throw new InvalidJobException(in.path + ".keys names field '" + k + "', which '" + in.from
                                + "' does not produce; its fields: " + upstream.names());
                    }
                }
                hash |= in.partitioning == Partitioning.HASH;
                edges.add(new JobEdge(in.from, op.id, in.partitioning, in.keys, in.output));
            }
            if (hash && op.inputs.stream().anyMatch(i -> i.partitioning != Partitioning.HASH
                    || !i.keys.equals(op.inputs.get(0).keys))) {
                throw new InvalidJobException(op.path + ".inputs mix keyed and non-keyed edges (or different keys); "
                        + "all inputs of a keyed operator must be hash edges on the same keys");
            }
            Schema output;
            boolean keyed = false;
            try {
                switch (op.kind) {
                    case SOURCE -> {
                        output = ((SourceFactory) op.binding.factory()).outputSchema(op.config);
                        // event-time settings are the runtime's, valid for every source type
                        io.weir.core.config.WatermarkSettings.of(op.config, output);
                    }
                    case OPERATOR -> {
                        OperatorFactory f = (OperatorFactory) op.binding.factory();
                        output = f.outputSchema(op.config, input);
                        keyed = f.requiresKeyedInput();
                        if (keyed) {
                            checkKeyedInput(op, f);
                        }
                    }
                    default -> {
                        ((SinkFactory) op.binding.factory()).validate(op.config, input);
                        output = null;
                    }
                }
            } catch (IllegalArgumentException e) {
                throw new InvalidJobException(e.getMessage() + unreadKeysNote(op), e);
            }
            Set<String> unknown = op.config.unaskedKeys();
            if (!unknown.isEmpty()) {
                throw new InvalidJobException(op.config.path() + "." + unknown.iterator().next()
                        + " is not a setting of plugin type '" + op.type + "'; its settings: " + op.config.askedKeys());
            }
            outputs.put(op.id, output);
            inputsOf.put(op.id, input);
            vertices.add(new JobVertex(op.id, op.kind, op.type, op.parallelism, op.config, input, output, hash, op.range,
                    op.binding));
        }
        for (RawOperator op : order) {
            if (op.kind != VertexKind.SINK && !consumed.contains(op.id)) {
                throw new InvalidJobException(op.path + " ('" + op.id + "') has no consumer: its output would be lost; "
                        + "connect it to an operator or a sink");
            }
        }
        return new JobGraph(name, config, vertices, edges);
    }

    /**
     * A keyed operator's state is scoped by the key the runtime extracts with its input edge's hash
     * {@code keys}; the operator labels its output with its own key fields. Both must be the same
     * fields, or rows of different groups share one state entry and come out under the wrong key.
     *
     * @throws InvalidJobException if an input is not a hash edge (naming the edge and its
     *         partitioning), or if the operator declares key fields ({@link OperatorFactory#keyFields})
     *         that are not the same set as the edge's keys (naming the operator id, both field lists)
     */
    private static void checkKeyedInput(RawOperator op, OperatorFactory factory) throws InvalidJobException {
        for (RawInput in : op.inputs) {
            if (in.partitioning != Partitioning.HASH) {
                throw new InvalidJobException(op.path + " ('" + op.id + "', " + op.type + ") keeps keyed state, but its input "
                        + in.path + " from '" + in.from + "' is \"partitioning\": \"" + in.partitioning.name().toLowerCase(Locale.ROOT)
                        + "\"; a keyed operator's inputs must be \"partitioning\": \"hash\" with \"keys\" naming its key fields");
            }
        }
        List<String> declared = factory.keyFields(op.config);
        List<String> edgeKeys = op.inputs.get(0).keys;
        if (!declared.isEmpty() && !new HashSet<>(declared).equals(new HashSet<>(edgeKeys))) {
            throw new InvalidJobException(op.path + " ('" + op.id + "', " + op.type + ") groups by " + op.config.path()
                    + ".key " + declared + ", but its input " + op.inputs.get(0).path + ".keys hash-partitions by " + edgeKeys
                    + "; state would be kept per " + edgeKeys + " and rows labelled with " + declared
                    + ": use the same fields in both");
        }
    }

    /**
     * @return for a plugin whose validation failed, a note naming the config keys it had not read
     *         (often a misspelt setting, e.g. {@code pth} for a missing {@code path}), or ""
     */
    private static String unreadKeysNote(RawOperator op) {
        Set<String> unread = op.config.unaskedKeys();
        if (unread.isEmpty()) {
            return "";
        }
        return " (note: " + op.config.path() + " also has " + String.join(", ", unread) + ", which plugin type '"
                + op.type + "' had not read when it failed; settings read: " + op.config.askedKeys() + ")";
    }
}
