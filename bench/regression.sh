#!/usr/bin/env bash
# Times `seshat regression` for SERIES current entries against a SQLite
# history of HISTORY payloads (default 1,000 against 100,000, the target of
# issue 6: within 5 s), reports written. 1 in 100 current entries carries a
# planted regression, so the command exits 2.
# Usage: bench/regression.sh [HISTORY] [SERIES]
set -euo pipefail
cd "$(dirname "$0")/.."
history=${1:-100000}
series=${2:-1000}
out=${BENCH_DIR:-bench/out}
mkdir -p "$out"
go build -o "$out/seshat" ./cmd/seshat
go build -o "$out/timecmd" ./bench/timecmd
store=$out/regression-history-$history-$series.db
current=$out/regression-current-$history-$series.json
if [ ! -f "$store" ] || [ ! -f "$current" ]; then
  echo "generating $history stored payloads in $series series"
  go run ./bench/genhistory -history "$history" -series "$series" -store "$store" -current "$current"
fi
echo "seshat regression bench: $series current entries, $history stored payloads, $(nproc) cores, $(go env GOVERSION)"
for method in shift segment edivisive zscore; do
  # The table (the child's stdout) goes to stderr: keep only the figures.
  "$out/timecmd" -label "regression $method ($series x $history)" -- \
    "$out/seshat" -q regression --lts "$current" --history "sqlite:$store" --method "$method" \
    --report-dir "$out/regression-report" 2>/dev/null
done
