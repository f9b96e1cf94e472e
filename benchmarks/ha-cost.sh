#!/usr/bin/env bash
# The cost of HA on checkpoint duration (docs/ha.md "Figures"): runs each variant of the checkpoint benchmark with the
# standalone and with the Hazelcast counter and store (run.sh --high-availability=...), alternating (which one goes
# first alternates by round), then compares them.
#   benchmarks/ha-cost.sh [ROUNDS] [VARIANT...]      (default: 3 rounds of nobp and throughput-16)
# stdout: per run, its summary line with "round" and "uptime" (/proc/loadavg just before it started) added; then per
# variant one "ha_cost" line: median, min, max and spread over the rounds of each run's median end-to-end duration,
# id draw, store add, end-to-end + both HA writes, and of records/s, and the ratio hazelcast / standalone of each.
# Each run's stderr goes to benchmarks/target/ha-cost/<variant>-<type>-r<round>.log. Needs python3 for the last step.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
case $rounds in '' | *[!0-9]* | 0) echo "ha-cost.sh: ROUNDS must be a whole number >= 1, got '$rounds'" >&2; exit 2 ;; esac
[ $# -gt 0 ] && shift
if [ $# -gt 0 ]; then variants=("$@"); else variants=(nobp throughput-16); fi
out=benchmarks/target/ha-cost
mkdir -p "$out"
: > "$out/runs.jsonl"
for round in $(seq 1 "$rounds"); do
    if [ $((round % 2)) = 1 ]; then order=(standalone hazelcast); else order=(hazelcast standalone); fi
    for variant in "${variants[@]}"; do
        for ha in "${order[@]}"; do
            load=$(cut -d' ' -f1-3 /proc/loadavg)
            log=$out/$variant-$ha-r$round.log
            summary=$(benchmarks/run.sh "$variant" --high-availability="$ha" 2>"$log" | grep '"type":"summary"' || true)
            if [ -z "$summary" ]; then
                echo "ha-cost.sh: $variant $ha round $round printed no summary; see $log" >&2
                continue
            fi
            echo "{\"round\":$round,\"uptime\":\"$load\",${summary#\{}" | tee -a "$out/runs.jsonl"
        done
    done
done
python3 - "$out/runs.jsonl" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
metrics = {"end_to_end_ms": lambda r: r["duration_ms"]["median"],
           "id_draw_ms": lambda r: r["id_draw_ms"]["median"],
           "store_add_ms": lambda r: r["store_add_ms"]["median"],
           "with_ha_writes_ms": lambda r: r["duration_with_ha_writes_ms"]["median"],
           "records_per_s": lambda r: r["records_per_s_after_warmup"]}
def spread(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    m = statistics.median(values)
    return {"n": len(values), "median": round(m, 2), "min": round(min(values), 2), "max": round(max(values), 2),
            "spread_percent": round((max(values) - min(values)) / m * 100, 1) if m else 0.0}
for variant in dict.fromkeys(r["variant"] for r in runs):
    line = {"type": "ha_cost", "variant": variant}
    for ha in ("standalone", "hazelcast"):
        rs = [r for r in runs if r["variant"] == variant and r["high_availability"]["type"] == ha]
        line[ha] = {name: spread([f(r) for r in rs]) for name, f in metrics.items()}
        line[ha]["load_1m"] = [float(r["uptime"].split()[0]) for r in rs]
    line["ratio_hazelcast_to_standalone"] = {
        name: round(line["hazelcast"][name]["median"] / line["standalone"][name]["median"], 2)
        for name in metrics if line["hazelcast"][name] and line["standalone"][name] and line["standalone"][name]["median"]}
    print(json.dumps(line))
PY
