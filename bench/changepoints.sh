#!/usr/bin/env bash
# Times `seshat changepoints` on generated series (default 1,000 series x
# 500 points, the target of issue 6: within 5 s).
# Usage: bench/changepoints.sh [SERIES] [POINTS]
set -euo pipefail
cd "$(dirname "$0")/.."
series=${1:-1000}
points=${2:-500}
out=${BENCH_DIR:-bench/out}
mkdir -p "$out"
go build -o "$out/seshat" ./cmd/seshat
go build -o "$out/timecmd" ./bench/timecmd
csv=$out/series-$series-x-$points.csv
[ -f "$csv" ] || go run ./bench/genseries -series "$series" -points "$points" -out "$csv"
echo "seshat changepoints bench: $series series x $points points, $(nproc) cores, $(go env GOVERSION)"
"$out/timecmd" -label "changepoints text ($series x $points)" -- "$out/seshat" -q changepoints "$csv" -o "$out/changepoints.txt"
"$out/timecmd" -label "changepoints json ($series x $points)" -- "$out/seshat" -q changepoints "$csv" --format json -o "$out/changepoints.json"
