#!/bin/sh
# A stand-in PI for the regression tests: prints a pi.json whose rate is
# 100 GFLOPS times the speed of the code under test (the number in the file
# $1, 1 when absent), times 0.7 while the file $2 says the host is in a slow
# phase (it holds how many more runs the phase lasts, counted down), with
# gaussian noise of relative size $3 (default 0.01).
speed=$(cat "$1" 2>/dev/null || echo 1)
host=1
if [ -n "$2" ] && [ -f "$2" ]; then
  left=$(cat "$2")
  if [ "$left" -gt 0 ]; then
    host=0.7
    echo $((left - 1)) > "$2"
  fi
fi
# The noise of each run is its own: seeded from /dev/urandom, not from the
# pid, whose consecutive values give awk's generator close first draws and
# so runs of one build that agree more than runs should; below 2^31, since
# mawk's srand takes every larger seed as one and the same.
seed=$(( $(od -An -N4 -tu4 /dev/urandom | tr -d ' ') % 2147483646 + 1 ))
awk -v s="$speed" -v h="$host" -v n="${3:-0.01}" -v seed="$seed" 'BEGIN {
  srand(seed)
  g = sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand())
  r = 100 * s * h * (1 + n * g); e = 1000 / r
  printf "{\"component\": \"fake\", \"name\": \"PiFake\", \"@parameters\": {\"matrix_size\": 64},"
  printf " \"@result\": {\"rate\": %.4f, \"elapsed\": %.5f, \"samples_ms\": [%.5f], \"ci95_low\": %.5f, \"ci95_high\": %.5f},", r, e, e, e * 0.99, e * 1.01
  printf " \"versions\": {\"fake\": \"1.0\"}}\n"
}'
