#!/usr/bin/env bash
# Runs examples/kafka-flights.json end to end on this machine: starts a private single-node Kafka broker (KRaft) and a
# private PostgreSQL server, each on a free loopback port in a temporary directory; loads examples/data/flights-20k.json
# into topic `flights` (4 partitions); runs the job with `bin/weir run` (flights -> per-origin count and average delay
# -> exactly once into topic `per-origin` and table `delays`); prints what a read_committed consumer and SQL see; and
# stops both servers at the end, also on failure or Ctrl-C.
#
# Needs: a built distribution (mvn -B -q install -DskipTests, or WEIR=/path/to/bin/weir), the Kafka broker class path
# (built into plugins/kafka-testkit by Maven; or KAFKA_HOME=/path/to/kafka_2.13-4.4.0), and the PostgreSQL server
# binaries (initdb, pg_ctl, psql: /usr/lib/postgresql/<version>/bin, the PATH, or PG_BIN=DIR). KEEP=1 keeps the
# temporary directory (logs, data, checkpoints).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
weir="${WEIR:-$root/distribution/target/weir/bin/weir}"
[ -x "$weir" ] || { echo "kafka-flights.sh: no Weir distribution at $weir: build it (mvn -B -q install -DskipTests) or set WEIR" >&2; exit 1; }

if [ -n "${KAFKA_HOME:-}" ]; then
  kafka_cp="$KAFKA_HOME/libs/*"
else
  cp_file="$root/plugins/kafka-testkit/target/classes/io/weir/kafka/testkit/broker-classpath.txt"
  [ -f "$cp_file" ] || { echo "kafka-flights.sh: no Kafka class path: build plugins/kafka-testkit with Maven or set KAFKA_HOME" >&2; exit 1; }
  kafka_cp="$(cat "$cp_file")"
fi
pg_bin="${PG_BIN:-}"
if [ -z "$pg_bin" ]; then
  pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
  [ -n "$pg_bin" ] || pg_bin="$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/initdb)")"
fi
[ -x "$pg_bin/initdb" ] || { echo "kafka-flights.sh: no PostgreSQL server binaries (initdb) in $pg_bin: install the postgresql package or set PG_BIN" >&2; exit 1; }

work="$(mktemp -d -t weir-kafka-flights-XXXX)"
broker_pid=""
pg_started=""
child=""
as_pg=()
if [ "$(id -u)" = 0 ]; then as_pg=(runuser -u postgres --); chown postgres "$work"; fi

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "$child" ]; then kill "$child" 2>/dev/null || true; wait "$child" 2>/dev/null || true; fi
  if [ -n "$broker_pid" ]; then kill "$broker_pid" 2>/dev/null || true; wait "$broker_pid" 2>/dev/null || true; fi
  if [ -n "$pg_started" ]; then "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$work/pgdata" -m fast -w stop > /dev/null 2>&1 || true; fi
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# each step runs in the background and is waited for, so that Ctrl-C (or a TERM) stops the script at once, and
# cleanup stops that step too
step() {
  "$@" &
  child=$!
  local rc=0
  wait "$child" || rc=$?
  child=""
  return "$rc"
}

free_port() {
  local p
  for _ in $(seq 1 100); do
    p=$((20000 + RANDOM % 40000))
    if ! (exec 3<> "/dev/tcp/127.0.0.1/$p") 2> /dev/null; then echo "$p"; return; fi
  done
  echo "kafka-flights.sh: no free port found" >&2; return 1
}
kport="$(free_port)"; cport="$(free_port)"; pgport="$(free_port)"
bootstrap="127.0.0.1:$kport"
tool() { step java -cp "$kafka_cp" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn "$here/KafkaFlightsTool.java" "$@"; }

echo "starting Kafka on $bootstrap and PostgreSQL on 127.0.0.1:$pgport (in $work)"
cat > "$work/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:$cport
listeners=PLAINTEXT://$bootstrap,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://$bootstrap
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$work/kdata
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
PROPS
java -cp "$kafka_cp" kafka.tools.StorageTool format -t "$(java -cp "$kafka_cp" kafka.tools.StorageTool random-uuid)" \
  -c "$work/server.properties" --standalone > "$work/format.log" 2>&1
java -cp "$kafka_cp" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn kafka.Kafka "$work/server.properties" > "$work/broker.log" 2>&1 &
broker_pid=$!

step "${as_pg[@]}" "$pg_bin/initdb" -D "$work/pgdata" -A trust -U weir -E UTF8 --no-sync > "$work/initdb.log" 2>&1
pg_started=1
step "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$work/pgdata" -l "$work/postgres.log" -w \
  -o "-p $pgport -k $work -c listen_addresses=127.0.0.1 -c max_prepared_transactions=10 -c fsync=off" start > /dev/null
psql=("$pg_bin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pgport" -U weir -d postgres)
"${psql[@]}" -c "CREATE TABLE delays (origin text PRIMARY KEY, flights bigint NOT NULL, avg_delay double precision)"

tool wait "$bootstrap"
tool create "$bootstrap" 4 flights per-origin
tool load "$bootstrap" flights "$here/data/flights-20k.json"

sed -e "s#127.0.0.1:9092#$bootstrap#g" -e "s#127.0.0.1:5432#127.0.0.1:$pgport#g" "$here/kafka-flights.json" > "$work/kafka-flights.json"
step "$weir" run "$work/kafka-flights.json"

tool committed "$bootstrap" per-origin
echo "table delays (committed rows, the 10 busiest origins):"
"${psql[@]}" -c "SELECT origin, flights, round(avg_delay::numeric, 2) AS avg_delay FROM delays ORDER BY flights DESC, origin LIMIT 10"
echo "$("${psql[@]}" -At -c "SELECT count(*) || ' origins, ' || sum(flights) || ' flights' FROM delays") in table delays"
