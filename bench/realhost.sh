#!/usr/bin/env bash
# Measures on this machine, under its own background load, how often
# `seshat regression` catches a real planted slowdown (5, 10, 20% more work
# in the timed loop of real numpy and gonum workloads run by the exec PI)
# and how often it fails identical code, in history mode (a build against
# 12 stored builds, --confirm auto) and in A/B mode (base and head in one
# job, --baseline side=base, --confirm auto), with the time each mode took
# against one plain build. See bench/realhost/main.go.
#
# Usage, from anywhere:
#   bench/realhost.sh                       # 50 jobs each: about 7 hours on 2 shared cores
#   bench/realhost.sh -jobs 10 -v           # about 1.5 hours
#   bench/realhost.sh -jobs 5 -slowdowns 0,10 -modes ab -out jobs.json
#   bench/realhost.sh -jobs 20 -slowdowns 0,20 -modes history -busy 5   # load phases
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./bench/realhost "$@"
