#!/usr/bin/env bash
# The torch GPU PIs and A/B in one job on a CUDA machine, in 4 to 6 minutes:
#   1. seshat host check;
#   2. pis.yaml: torch matmul (4096, 8192; float32, bfloat16) and conv2d
#      (NCHW, NHWC) on the GPU, 2 runs each, parsed to an LTS file;
#   3. ab.yaml: A/B in one job, run interleaved: an exec PI (ab_matmul.py,
#      bfloat16 8192) whose side "same" is identical to "base" and whose side
#      "slow" does real extra work in the timed loop (one more matmul of half
#      the size: +12.5% of the FLOPs), and the torch matmul PI with two
#      identical sides; then seshat regression --baseline side=base, which
#      must fail on "slow" alone (exit 2).
# Usage: bench/gpu/check.sh   (from the repository root; SESHAT names the
# binary, default bench/out/seshat, built when Go is there; OUT the folder
# for logs, default bench/out/gpu; RESULTS the results, default $OUT/results).
# The machine needs torch with
# CUDA for python3 on PATH.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-bench/out/gpu}
S=${SESHAT:-bench/out/seshat}
if [ -z "${SESHAT:-}" ] && command -v go >/dev/null; then
  mkdir -p bench/out && go build -o "$S" ./cmd/seshat || exit 1
fi
S=$(realpath "$S"); PY=$(command -v python3); R=${RESULTS:-$OUT/results}
mkdir -p "$OUT"; rm -rf "$R"
T0=$(date +%s); step() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
$PY -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.is_available())'
"$S" host check > "$OUT/host.txt" 2>&1; cat "$OUT/host.txt"
step "PIs"
timeout 170 "$S" run --benchmark bench/gpu/pis.yaml --results-dir "$R/pis" --python "$PY" > "$OUT/pis-run.log" 2>&1
echo "run: exit $?"; tail -1 "$OUT/pis-run.log"
"$S" parse --results-dir "$R/pis" --output-lts "$OUT/pis-lts.json" > "$OUT/pis-parse.log" 2>&1; echo "parse: exit $?"
step "A/B"
timeout 300 "$S" run --benchmark bench/gpu/ab.yaml --results-dir "$R/ab" --python "$PY" > "$OUT/ab-run.log" 2>&1
echo "run: exit $?"; tail -1 "$OUT/ab-run.log"
"$S" regression --results-dir "$R/ab" --baseline side=base --report-dir "$R/ab-report" > "$OUT/ab-regression.txt" 2> "$OUT/ab-regression.err"
echo "regression --baseline side=base: exit $? (2 expected: side=slow)"
step "done"
sed -n '/^#/,$p' "$OUT/ab-regression.txt" | cut -c1-150
tail -3 "$OUT/ab-regression.err"
