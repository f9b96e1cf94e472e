#!/usr/bin/env bash
# Kafka -> keyed aggregate -> Kafka, exactly-once (kafka-2pc) vs at-least-once (delivery-guarantee), checkpoints
# every 1 s (io.weir.benchmarks.kafka.KafkaBenchmark): records/s of a bounded job, and produce-to-visible latency
# p50/p99 for a read_committed consumer at a fixed rate; alternating rounds, JSON lines, medians at the end.
# Starts its own single-node broker (kafka-testkit).
#   benchmarks/kafka.sh [--rounds=3] [--records=300000] [--rate=5000] [--latency-s=15]
# Needs benchmarks/target/classpath.txt and the module jar (built by benchmarks/run.sh or mvn package).
set -euo pipefail
cd "$(dirname "$0")/.."
jar=$(ls benchmarks/target/weir-benchmarks-*.jar | grep -v -- '-sources\|-javadoc' | head -n 1)
classpath="$jar:$(cat benchmarks/target/classpath.txt)"
# shellcheck disable=SC2086 # JAVA_OPTS is a list of flags
exec java -Xms1g -Xmx1g -Dorg.slf4j.simpleLogger.logFile=System.err -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
    ${JAVA_OPTS:-} -cp "$classpath" io.weir.benchmarks.kafka.KafkaBenchmark "$@"
