package io.weir.core.job;

import java.util.List;

/** One input of an operator as read from the job file. Not thread-safe. */
final class RawInput {
    String path;
    String from;
    Partitioning partitioning;
    List<String> keys;
    /** Side output name, null for the main output. */
    String output;
}
