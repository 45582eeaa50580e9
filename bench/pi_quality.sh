#!/usr/bin/env bash
# Measurement quality of the PIs (issue 3, item 10): runs the gonum matmul
# PI (n=256, float64, repetitions: auto) ten times as separate runs and
# reports the CV of the rate across runs and the time of each run.
# Usage: bench/pi_quality.sh [piquality flags...]   e.g. -backend numpy -size 512
set -euo pipefail
cd "$(dirname "$0")/.."
out=${BENCH_DIR:-bench/out}
mkdir -p "$out"
go build -o "$out/seshat" ./cmd/seshat
go run ./bench/piquality -seshat "$out/seshat" -out "$out/piquality" "$@"
