package io.weir.state.rocksdb;

/**
 * The earliest timer timestamp of each key group of a {@link RocksTimerQueue}, with the key group holding the
 * overall earliest one: a tournament tree (each inner node the index of the smaller of its children), so
 * {@link #set} is O(log n) and {@link #min} O(1). Ties go to the lower key-group index. Task thread only.
 */
final class KeyGroupHeads {
    private final int leaves;
    /** Per key group index: its earliest timestamp (meaningful only where {@link #present}). */
    private final long[] head;
    private final boolean[] present;
    /** Tournament tree over leaves; node 1 is the root, leaf i is node leaves + i; -1 = no key group. */
    private final int[] tree;

    /** @param size the number of key groups, at least 1 */
    KeyGroupHeads(int size) {
        int n = 1;
        while (n < size) {
            n <<= 1;
        }
        this.leaves = n;
        this.head = new long[size];
        this.present = new boolean[size];
        this.tree = new int[2 * n];
        java.util.Arrays.fill(tree, -1);
    }

    /** Sets the earliest timestamp of key group index {@code index}. */
    void set(int index, long timestamp) {
        present[index] = true;
        head[index] = timestamp;
        update(index);
    }

    /** Key group index {@code index} has no timers. */
    void clear(int index) {
        present[index] = false;
        update(index);
    }

    private void update(int index) {
        int node = leaves + index;
        tree[node] = present[index] ? index : -1;
        for (node >>>= 1; node >= 1; node >>>= 1) {
            tree[node] = earlier(tree[2 * node], tree[2 * node + 1]);
        }
    }

    /** @return the key group index with the earliest timestamp, or -1 if no key group has timers */
    int min() {
        return tree[1];
    }

    private int earlier(int a, int b) {
        if (a < 0) {
            return b;
        }
        if (b < 0) {
            return a;
        }
        return head[b] < head[a] ? b : a;
    }
}
