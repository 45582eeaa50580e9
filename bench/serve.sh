#!/usr/bin/env bash
# Times one `seshat serve` process on a store of 100,000 payloads x 8 KPIs
# (issue 25's targets: landing page 1 s, series page 300 ms, API calls p95
# 200 ms, peak RSS 500 MB). Usage: bench/serve.sh [REQUESTS]
# Environment: BENCH_DIR (default bench/out). The store is the explorer
# benchmark's, built once (about half a minute) and kept in BENCH_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-20}
out=${BENCH_DIR:-bench/out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
db=$out/lts-100000-explorer.db
if [ ! -f "$db" ]; then
  echo "building the store $db (the explorer benchmark's)"
  go test ./explorer -run '^$' -bench 'Explorer/api-series$' -benchtime 1x -explorer.dir "$out" >/dev/null
fi
go build -o "$out/seshat" ./cmd/seshat
echo "seshat serve bench: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(go env GOVERSION)"
go run ./bench/serve -seshat "$out/seshat" -store "sqlite:$db" -n "$n"
