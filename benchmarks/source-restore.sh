#!/usr/bin/env bash
# Measures how long the file source takes to restore at several positions of a large JSON-lines file
# (io.weir.benchmarks.source.SourceRestoreBenchmark).
#   benchmarks/source-restore.sh [--file=PATH] [--records=N] [--positions=N,N,...] [--rounds=N]
# Results: JSON lines on stdout (one per restore, then a summary per position); logs on stderr.
# Without --file it generates --records flight-like records (default 6.3 M, ~570 MB) into a temporary
# file, deleted afterwards. Builds the module like run.sh when its jar or class path file is missing.
set -euo pipefail

cd "$(dirname "$0")/.."

if ! compgen -G "benchmarks/target/weir-benchmarks-*.jar" > /dev/null || [ ! -s benchmarks/target/classpath.txt ]; then
    echo "source-restore.sh: building benchmarks (mvn -q -B package -DskipTests -pl benchmarks -am)" >&2
    mvn ${WEIR_MVN_OFFLINE:+-o} -q -B package -DskipTests -pl benchmarks -am >&2
fi

jar=$(ls benchmarks/target/weir-benchmarks-*.jar | grep -v -- '-sources\|-javadoc' | head -n 1)
classpath="$jar:$(cat benchmarks/target/classpath.txt)"

# shellcheck disable=SC2086 # JAVA_OPTS is a list of flags
exec java -Xms2g -Xmx2g -XX:+UseParallelGC -XX:+UseCondCardMark \
    -Dorg.slf4j.simpleLogger.logFile=System.err \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
    ${JAVA_OPTS:-} \
    -cp "$classpath" io.weir.benchmarks.source.SourceRestoreBenchmark "$@"
