#!/usr/bin/env bash
# Latency of GET /jobs/:id/checkpoints on a real node (the built distribution's `bin/weir node`, its own process)
# while the throughput-16 pipeline runs on it, and the throughput cost of a client polling it every 100 ms
# (io.weir.benchmarks.rest.RestLatencyBenchmark; see benchmarks/README.md).
#   benchmarks/rest-latency.sh [--rounds=N] [--round-s=N] [--warmup-s=N] [--poll-ms=N] [--weir=FILE] [--keep]
# Results: JSON lines on stdout (one per round, then a summary); logs on stderr.
# Builds the distribution and the benchmarks module (inside the reactor, `package`, never `install`; offline
# if WEIR_MVN_OFFLINE=1) when the launcher, the jar or the class path file is missing.
set -euo pipefail

cd "$(dirname "$0")/.."

if [ ! -x distribution/target/weir/bin/weir ] || ! compgen -G "benchmarks/target/weir-benchmarks-*.jar" > /dev/null \
        || [ ! -s benchmarks/target/classpath.txt ]; then
    echo "rest-latency.sh: building (mvn -q -B package -DskipTests -pl distribution,benchmarks -am)" >&2
    mvn ${WEIR_MVN_OFFLINE:+-o} -q -B package -DskipTests -pl distribution,benchmarks -am >&2
fi

jar=$(ls benchmarks/target/weir-benchmarks-*.jar | grep -v -- '-sources\|-javadoc' | head -n 1)
classpath="$jar:$(cat benchmarks/target/classpath.txt)"

# shellcheck disable=SC2086 # JAVA_OPTS is a list of flags
exec java -Xmx256m \
    -Dorg.slf4j.simpleLogger.logFile=System.err \
    -Dorg.slf4j.simpleLogger.showDateTime=true \
    -Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=info \
    ${JAVA_OPTS:-} \
    -cp "$classpath" io.weir.benchmarks.rest.RestLatencyBenchmark "$@"
