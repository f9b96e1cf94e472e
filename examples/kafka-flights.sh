#!/usr/bin/env bash
# Starts a local single-node Kafka broker (KRaft) on 127.0.0.1:9092, creates the topics of
# examples/kafka-flights.json, loads examples/data/flights-20k.json into topic `flights` (one
# record per flight, 4 partitions) and runs the job with bin/weir. Needs a Kafka 4.4.0
# distribution: KAFKA_HOME=/path/to/kafka_2.13-4.4.0 examples/kafka-flights.sh
# The broker keeps running afterwards (its pid is printed); read the exactly-once output with
#   $KAFKA_HOME/bin/kafka-console-consumer.sh --bootstrap-server 127.0.0.1:9092 --topic per-origin \
#     --from-beginning --isolation-level read_committed
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
weir="${WEIR:-$here/../bin/weir}"
: "${KAFKA_HOME:?set KAFKA_HOME to a Kafka 4.4.0 distribution (kafka_2.13-4.4.0)}"
work="${WORK:-$(mktemp -d -t weir-kafka-XXXX)}"

cat > "$work/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:9093
listeners=PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093
advertised.listeners=PLAINTEXT://127.0.0.1:9092
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
"$KAFKA_HOME/bin/kafka-storage.sh" format -t "$("$KAFKA_HOME/bin/kafka-storage.sh" random-uuid)" \
  -c "$work/server.properties" --standalone > /dev/null
"$KAFKA_HOME/bin/kafka-server-start.sh" "$work/server.properties" > "$work/broker.log" 2>&1 &
echo "broker pid $! (log $work/broker.log); stop it with: kill $!"
for _ in $(seq 1 60); do
  "$KAFKA_HOME/bin/kafka-topics.sh" --bootstrap-server 127.0.0.1:9092 --list > /dev/null 2>&1 && break
  sleep 1
done
for t in flights per-origin; do
  "$KAFKA_HOME/bin/kafka-topics.sh" --bootstrap-server 127.0.0.1:9092 --create --if-not-exists \
    --topic "$t" --partitions 4 --replication-factor 1 > /dev/null
done
# the data file is one JSON array of flat objects: one object per line for the console producer
sed -e 's/^\[//' -e 's/\]$//' -e 's/},{/}\n{/g' "$here/data/flights-20k.json" \
  | "$KAFKA_HOME/bin/kafka-console-producer.sh" --bootstrap-server 127.0.0.1:9092 --topic flights
echo "loaded $(grep -o "\"origin\"" "$here/data/flights-20k.json" | wc -l) flights into topic flights"
cd "$here"
"$weir" run kafka-flights.json
