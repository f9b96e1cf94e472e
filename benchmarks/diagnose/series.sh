#!/usr/bin/env bash
# series.sh OUT VARIANT [N]: N (default 10) runs in a row of benchmarks/run.sh VARIANT, each preceded by a
# core-to-core round trip of pingpong.c (built into /tmp/pingpong if missing). Per run: OUT/VARIANT-I.jsonl (the
# benchmark's lines) and .err; one summary line per run on stdout and in OUT/summary.txt:
#   VARIANT run I load L pingpong T ns records/s R
set -euo pipefail
out=$1; v=$2; n=${3:-10}
here=$(cd "$(dirname "$0")" && pwd)
[ -x /tmp/pingpong ] || gcc -O2 -pthread "$here/pingpong.c" -o /tmp/pingpong
mkdir -p "$out"
cd "$here/../.."
for i in $(seq 1 "$n"); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  pp=$(/tmp/pingpong | grep -o '[0-9.]* ns')
  WEIR_MVN_OFFLINE=1 benchmarks/run.sh "$v" > "$out/$v-$i.jsonl" 2> "$out/$v-$i.err"
  r=$(tail -1 "$out/$v-$i.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["records_per_s_after_warmup"])')
  echo "$v run $i load $load pingpong $pp records/s $r" | tee -a "$out/summary.txt"
done
