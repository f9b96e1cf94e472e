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
}
