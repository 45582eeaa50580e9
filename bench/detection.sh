#!/usr/bin/env bash
# Measures how well `seshat regression` finds planted drops (5%, 10%, 20%)
# and how often it raises false alarms, in histories of 20 builds x 5 runs,
# version to version and nightly on one stack, under four noise models,
# beside Apache Otava's change points used the way MatrixBenchmarking uses
# them (see bench/detection/main.go for the scenarios and columns).
# Usage: bench/detection.sh [TRIALS] (default 1000 analyses per scenario)
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./bench/detection -trials "${1:-1000}"
