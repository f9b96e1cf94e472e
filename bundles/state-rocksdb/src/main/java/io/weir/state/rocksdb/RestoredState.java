package io.weir.state.rocksdb;

/**
 * One state's entries read from canonical snapshots and not yet loaded into RocksDB: the bytes of each key
 * group's entries, kept until the operator registers the state (which supplies the serializers needed to
 * split them into RocksDB keys and values). Task thread only; never modified after the restore.
 */
final class RestoredState {
    final String name;
    final StateKind kind;
    /** Per key group index (key group - range start): the entries' bytes, or null if none. */
    final byte[][] entries;
    final int[] entryCounts;

    RestoredState(String name, StateKind kind, int keyGroups) {
        this.name = name;
        this.kind = kind;
        this.entries = new byte[keyGroups][];
        this.entryCounts = new int[keyGroups];
    }

    boolean isEmpty() {
        for (int c : entryCounts) {
            if (c > 0) {
                return false;
            }
        }
        return true;
    }
}
