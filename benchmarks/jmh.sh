#!/usr/bin/env bash
# Runs the JMH microbenchmarks of the record path (package io.weir.benchmarks.jmh).
#   benchmarks/jmh.sh [JMH args]            e.g.  benchmarks/jmh.sh Channel -wi 5 -i 10 -f 2
#   benchmarks/jmh.sh -l                    lists the benchmarks;  benchmarks/jmh.sh -h  JMH's options
# Results: JMH's JSON result on stdout (written with -rf json -rff to $WEIR_JMH_RESULT, default
# benchmarks/target/jmh-result.json, then printed); JMH's progress and human-readable table on stderr.
# Do not pass -rf/-rff yourself (JMH rejects a repeated option); set WEIR_JMH_RESULT instead.
# Builds first when needed: like run.sh (mvn -q -B package -DskipTests -pl benchmarks -am, inside the reactor; never
# mvn install) when the jar or class path file is missing; the benchmarks
# module alone (same command without -am) when its class path has no JMH or a file of
# benchmarks/src/main or benchmarks/pom.xml is newer than the jar. WEIR_JMH_BUILD=always forces the
# -am build: use it after changing the runtime or state code you want to measure.
# Environment: JAVA_OPTS adds flags to the JMH host JVM; forks inherit them and then append their
# own (-Xms1g -Xmx1g -XX:+UseParallelGC, see each benchmark's @Fork).
set -euo pipefail

cd "$(dirname "$0")/.."

jar=$(ls benchmarks/target/weir-benchmarks-*.jar 2>/dev/null | grep -v -- '-sources\|-javadoc' | head -n 1 || true)

# prints the maven -pl/-am arguments of the build needed, nothing if none
build_args() {
    if [ "${WEIR_JMH_BUILD:-}" = always ] || [ -z "$jar" ] || [ ! -s benchmarks/target/classpath.txt ]; then
        echo "-pl benchmarks -am"
    elif ! grep -q 'jmh-core' benchmarks/target/classpath.txt \
            || [ -n "$(find benchmarks/src/main benchmarks/pom.xml -newer "$jar" -type f -print -quit)" ]; then
        echo "-pl benchmarks"
    fi
}

args=$(build_args)
if [ -n "$args" ]; then
    echo "jmh.sh: building benchmarks (mvn -q -B package -DskipTests $args)" >&2
    # shellcheck disable=SC2086 # args is a list of flags
    mvn ${WEIR_MVN_OFFLINE:+-o} -q -B package -DskipTests $args >&2
    jar=$(ls benchmarks/target/weir-benchmarks-*.jar | grep -v -- '-sources\|-javadoc' | head -n 1)
fi
classpath="$jar:$(cat benchmarks/target/classpath.txt)"

result=${WEIR_JMH_RESULT:-benchmarks/target/jmh-result.json}
rm -f "$result"

status=0
# shellcheck disable=SC2086 # JAVA_OPTS is a list of flags
java \
    -Dorg.slf4j.simpleLogger.logFile=System.err \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
    ${JAVA_OPTS:-} \
    -cp "$classpath" org.openjdk.jmh.Main -rf json -rff "$result" "$@" >&2 || status=$?

# -l, -h and friends run nothing and write no result
if [ -f "$result" ]; then
    cat "$result"
fi
exit "$status"
