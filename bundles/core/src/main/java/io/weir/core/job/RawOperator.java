package io.weir.core.job;

import io.weir.api.plugin.PluginConfig;

import java.util.ArrayList;
import java.util.List;

/** An operator as read from the job file, before its graph is built; filled in by the parsing stages. Not thread-safe. */
final class RawOperator {
    String path;
    String id;
    String type;
    int parallelism;
    VertexKind kind;
    PluginConfig config;
    io.weir.core.plugin.VersionRange range;
    io.weir.core.plugin.PluginBinding binding;
    final List<RawInput> inputs = new ArrayList<>();
}
