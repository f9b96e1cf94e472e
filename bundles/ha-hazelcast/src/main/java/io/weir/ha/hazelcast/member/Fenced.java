package io.weir.ha.hazelcast.member;

/**
 * A value of one of the Weir maps whose two copies can be ordered when a split cluster merges again
 * ({@link FencedMergePolicy}): the copy written under the newer fencing epoch wins; under the same epoch, the one
 * further along.
 */
public interface Fenced {
    /** @return the fencing epoch that last wrote this value, ≥ 0 */
    long epoch();

    /** @return how far along this value is within its epoch (higher wins: a newer checkpoint id, a next id, an ended job) */
    long progress();
}
