package io.weir.state.heap.operator;

/**
 * Constants of the heap backend's operator-state snapshot stream (docs/checkpoint-format.md,
 * "Heap operator state"):
 * <pre>
 * header   magic int 0x57484F53 ("WHOS") | version int
 * state*   key (int length + UTF-8: the name, or "union:" + name for a union list state) | element count int |
 *          element*: byte length int | bytes (element serializer)   &lt;- OperatorStateHandle offsets point here
 * </pre>
 * Each element is self-delimiting, so a restore reads exactly the offsets its handle lists (round-robin
 * redistribution may hand a subtask any subset of another subtask's elements).
 */
final class OperatorSnapshotFormat {
    /** ASCII "WHOS": Weir Heap Operator State. */
    static final int MAGIC = 0x57484F53;
    /** The version written, and the newest read. */
    static final int VERSION = 1;

    private OperatorSnapshotFormat() {
    }
}
