#!/usr/bin/env bash
# Generates a synthetic results tree and times seshat on it, printing figures
# a person can compare between commits. Usage: bench/run.sh [RUNS]
# Environment: BENCH_DIR (default bench/out), GOMAXPROCS as usual.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10000}
out=${BENCH_DIR:-bench/out}
bin=$out/seshat
mkdir -p "$out"
go build -o "$bin" ./cmd/seshat
go build -o "$out/timecmd" ./bench/timecmd
tree=$out/results-$runs
if [ ! -d "$tree" ]; then
  echo "generating $runs runs in $tree"
  go run ./bench/gen -runs "$runs" -out "$tree"
fi
echo "seshat bench: $runs runs, $(nproc) cores, $(go env GOVERSION)"
# Cold: no cache files at all.
find "$tree" -name .seshat_cache.cbor -delete
sync
"$out/timecmd" -label "parse cold ($runs)" -- "$bin" -q parse --results-dir "$tree"
"$out/timecmd" -label "parse cached ($runs)" -- "$bin" -q parse --results-dir "$tree"
"$out/timecmd" -label "parse cached+matrix ($runs)" -- "$bin" -q parse --results-dir "$tree" --output-matrix "$out/matrix.json"
# Every pi report (figures as SVG, PNG and CSV, HTML pages) from the cached parse.
rm -rf "$out/reports"
"$out/timecmd" -label "visualize cached ($runs)" -- "$bin" -q visualize --results-dir "$tree" --output-dir "$out/reports"
# Upload to the embedded store (a cached parse, strict validation, one
# transaction), again (every payload replaced), and one series' history.
rm -f "$out/lts.db" "$out/lts.db-wal" "$out/lts.db-shm"
"$out/timecmd" -label "upload sqlite ($runs)" -- "$bin" -q upload --results-dir "$tree" --store "sqlite:$out/lts.db"
"$out/timecmd" -label "re-upload sqlite ($runs)" -- "$bin" -q upload --results-dir "$tree" --store "sqlite:$out/lts.db"
"$out/timecmd" -label "history one series" -- "$bin" -q history --store "sqlite:$out/lts.db" --filters backend=gonum,matrix_size=512,dtype=float32 --output "$out/history.txt"
if [ -x bench/run.d/more.sh ]; then bench/run.d/more.sh "$bin" "$tree" "$out"; fi
