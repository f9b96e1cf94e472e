#!/usr/bin/env bash
# Rows/s of the jdbc-postgres sink (io.weir.benchmarks.postgres.PostgresSinkBenchmark): insert and upsert,
# checkpoints every 1 s, against a private PostgreSQL server the benchmark starts (initdb; needs the
# server binaries, see docs/connectors-postgres.md).
#   benchmarks/postgres-sink.sh [rows per mode, default 1000000]
# Needs benchmarks/target/classpath.txt and the module jar (built by benchmarks/run.sh or mvn package).
set -euo pipefail
cd "$(dirname "$0")/.."
jar=$(ls benchmarks/target/weir-benchmarks-*.jar | grep -v -- '-sources\|-javadoc' | head -n 1)
classpath="$jar:$(cat benchmarks/target/classpath.txt)"
# shellcheck disable=SC2086 # JAVA_OPTS is a list of flags
exec java -Xms1g -Xmx1g -Dorg.slf4j.simpleLogger.logFile=System.err -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
    ${JAVA_OPTS:-} -cp "$classpath" io.weir.benchmarks.postgres.PostgresSinkBenchmark "$@"
