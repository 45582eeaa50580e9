#!/usr/bin/env bash
# Replays real labelled performance series build by build through
# `seshat regression` (a store, one build per revision, each judged against
# the builds before it) and through `seshat changepoints`, beside
# Perfherder's detector and Otava's defaults, and prints per method the
# recall of confirmed changes, far alerts per 1,000 builds, repeated
# dismissed alerts, alerts per change and TCPDBench's F1 (see
# bench/realdata/main.go). Default input: ../shared/data/perf-series/
# series.json (Mozilla Perfherder, triaged) and, when present,
# bench/realdata/testdata/host-series.json (real runs of this repository's
# PIs with planted slowdowns, made by bench/realhost-series.sh).
# With -frontier, the best recall online detectors built on a few
# statistics reach at each rate of far alerts, and an oracle's.
# Usage: bench/realdata.sh [-v] [-frontier [-curve]] [FILE.json ...]
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./bench/realdata "$@"
