package io.weir.core.state;

/**
 * The asynchronous part of a snapshot: runs on the AsyncOperations pool after the synchronous part
 * "took the picture", writes it to checkpoint storage and returns the handle (PROTOCOL.md §3).
 *
 * @param <H> the handle type
 */
@FunctionalInterface
public interface AsyncSnapshot<H> {
    /**
     * @return the handle of what was written, or null if there was no state
     * @throws Exception if writing fails; the task then declines the checkpoint
     */
    H write() throws Exception;

    /**
     * Releases what the synchronous part holds for {@link #write} (a backend's snapshot version, a RocksDB
     * snapshot or native checkpoint directory) when {@code write} will not run: the checkpoint was aborted or
     * declined before its asynchronous part, the pool refused the work, or an earlier part of the same
     * asynchronous part failed. The task's checkpoint coordinator calls it for every snapshot of a checkpoint
     * once that checkpoint's asynchronous part ends or is given up, so it must be idempotent and do nothing after
     * {@code write} (which releases the same itself). Never throws; the default holds nothing.
     */
    default void discard() {
    }
}
