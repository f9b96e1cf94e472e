#!/usr/bin/env bash
# Savepoint duration and restore time (same and rescaled parallelism) of a keyed job with 100,000 keys on the
# embedded engine (io.weir.benchmarks.savepoint.SavepointBenchmark; see benchmarks/README.md).
#   benchmarks/savepoint.sh [--rounds=N] [--keys=N] [--parallelism=N] [--rescale-to=N] [--warmup-s=N] [--run-s=N] [--dir=DIR]
# Results: JSON lines on stdout (a savepoint line per round, a restore line per restore, then a summary);
# logs on stderr. Exit status 0 = every restore verified, 1 = a job failed or restored wrong counts, 2 = usage.
# Builds the module (inside the reactor, offline if WEIR_MVN_OFFLINE=1; never `mvn install`) when its jar or
# class path file is missing.
set -euo pipefail

cd "$(dirname "$0")/.."

if ! compgen -G "benchmarks/target/weir-benchmarks-*.jar" > /dev/null || [ ! -s benchmarks/target/classpath.txt ]; then
    echo "savepoint.sh: building benchmarks (mvn -q -B package -DskipTests -pl benchmarks -am)" >&2
    mvn ${WEIR_MVN_OFFLINE:+-o} -q -B package -DskipTests -pl benchmarks -am >&2
fi

jar=$(ls benchmarks/target/weir-benchmarks-*.jar | grep -v -- '-sources\|-javadoc' | head -n 1)
classpath="$jar:$(cat benchmarks/target/classpath.txt)"

# shellcheck disable=SC2086 # JAVA_OPTS is a list of flags
exec java -Xms2g -Xmx2g -XX:+UseParallelGC -XX:+UseCondCardMark \
    -Dorg.slf4j.simpleLogger.logFile=System.err \
    -Dorg.slf4j.simpleLogger.showDateTime=true \
    -Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
    -Dorg.slf4j.simpleLogger.log.io.weir="${WEIR_LOG_LEVEL:-warn}" \
    ${JAVA_OPTS:-} \
    -cp "$classpath" io.weir.benchmarks.savepoint.SavepointBenchmark "$@"
