#!/usr/bin/env bash
# Runs the checkpoint benchmark (PROTOCOL.md §5) on the embedded engine.
#   benchmarks/run.sh VARIANT [--duration-s=N] [--warmup-s=N] [--checkpoint-dir=DIR] [--set key=value]...
#       [--high-availability=standalone|hazelcast [--ha-members=N]]   (benchmarks/ha-cost.sh compares the two)
#   benchmarks/run.sh --list   (variants include rocksdb-nobp, rocksdb-throughput-16, rocksdb-throughput-100k)
#   benchmarks/run.sh recovery [--rounds=N] [--rate=N] [--keys=N] [--checkpoint-interval-ms=N]
#       (task failures injected into a small-state job: recovery time and its parts, io.weir.benchmarks.recovery)
#   benchmarks/run.sh large-state [--job=hourly|10m-keys] [--backend=rocksdb|hashmap] [--checkpoints=N] ...
#       (checkpoint sizes full vs incremental, and restore time, of a large keyed state; io.weir.benchmarks.largestate;
#        the RocksDB backend's restore split (download, open, clip) is logged on stderr at INFO)
#   benchmarks/run.sh upgrade [--upgrades=N] [--interval-s=N]
#       (plugin upgrades in a row under a running job: downtime, records lost/duplicated; docs/plugins.md)
# Results: JSON lines on stdout (one per completed checkpoint, then a summary); logs on stderr.
# Builds the module (and what it depends on) first when its jar or class path file is missing.
# Environment: JAVA_OPTS adds JVM flags (e.g. a JFR recording); WEIR_LOG_LEVEL sets the io.weir
# log level (default warn).
set -euo pipefail

cd "$(dirname "$0")/.."

jar_present() {
    compgen -G "benchmarks/target/weir-benchmarks-*.jar" > /dev/null
}

if ! jar_present || [ ! -s benchmarks/target/classpath.txt ]; then
    echo "run.sh: building benchmarks (mvn -q -B package -DskipTests -pl benchmarks -am)" >&2
    mvn ${WEIR_MVN_OFFLINE:+-o} -q -B package -DskipTests -pl benchmarks -am >&2
fi

jar=$(ls benchmarks/target/weir-benchmarks-*.jar | grep -v -- '-sources\|-javadoc' | head -n 1)
classpath="$jar:$(cat benchmarks/target/classpath.txt)"

main=io.weir.benchmarks.CheckpointBenchmark
if [ "${1:-}" = recovery ]; then
    main=io.weir.benchmarks.recovery.RecoveryBenchmark
    shift
elif [ "${1:-}" = large-state ]; then
    main=io.weir.benchmarks.largestate.LargeStateBenchmark
    JAVA_OPTS="-Dorg.slf4j.simpleLogger.log.io.weir.state.rocksdb=info ${JAVA_OPTS:-}"
    shift
elif [ "${1:-}" = upgrade ]; then
    main=io.weir.benchmarks.upgrade.UpgradeBenchmark
    shift
fi

# -XX:+UseCondCardMark: operators that reuse one row per task store references into that long-lived row per record,
# and the parallel collector's write barrier writes the row's card-table byte on every such store; with the flag it
# reads the byte first and writes only a clean card. Without it, row reuse measured slower than allocating, most
# likely because the task threads' rows share card-table lines (benchmarks/README.md, "Reusing rows on the record path").
# shellcheck disable=SC2086 # JAVA_OPTS is a list of flags
exec java -Xms2g -Xmx2g -XX:+UseParallelGC -XX:+UseCondCardMark \
    -Dorg.slf4j.simpleLogger.logFile=System.err \
    -Dorg.slf4j.simpleLogger.showDateTime=true \
    -Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
    -Dorg.slf4j.simpleLogger.log.io.weir="${WEIR_LOG_LEVEL:-warn}" \
    ${JAVA_OPTS:-} \
    -cp "$classpath" "$main" "$@"
