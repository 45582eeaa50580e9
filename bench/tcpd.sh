#!/usr/bin/env bash
# Scores every change-point detector (analyze.Names(), default parameters)
# and "no change" on TCPDBench (van den Burg and Williams, "An Evaluation
# of Change Point Detection Algorithms", arXiv:2003.06222): TCPDBench's F1,
# margin 5, over every annotator; per method the mean F1, and the datasets
# where it scores below predicting no change. See bench/tcpd/main.go.
#
# The data is not in this repository (the datasets' licences vary). Get it:
#
#   git clone https://github.com/alan-turing-institute/TCPD
#       datasets/<name>/<name>.json and annotations.json. 32 of the 42
#       datasets are in the repository; the other 10 (apple, bee_waggle_6,
#       bitcoin, iceland_tourism, measles, occupancy, ratner_stock,
#       robocalls, scanline_126007, scanline_42049) are fetched from their
#       sources by `make` in TCPD (Python and network access needed);
#       without them the bench runs on the others and lists them as missing.
#
#   git clone https://github.com/alan-turing-institute/TCPDBench   (optional)
#       analysis/annotations/annotations.json, the same annotations, is
#       used when given; analysis/output/scores/default_f1_scores.json, the
#       published scores, checks the "no change" column against TCPDBench's
#       "zero" method.
#
# Usage: bench/tcpd.sh TCPD_DIR [TCPDBENCH_DIR] [-v]
set -euo pipefail
if [ $# -lt 1 ]; then
  sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 2
fi
tcpd=$(cd "$1" && pwd)
shift
args=(-data "$tcpd/datasets" -annotations "$tcpd/annotations.json")
if [ $# -gt 0 ] && [ "$1" != -v ]; then
  bench=$(cd "$1" && pwd)
  shift
  [ -f "$bench/analysis/annotations/annotations.json" ] && args+=(-annotations "$bench/analysis/annotations/annotations.json")
  [ -f "$bench/analysis/output/scores/default_f1_scores.json" ] && args+=(-scores "$bench/analysis/output/scores/default_f1_scores.json")
fi
cd "$(dirname "$0")/.."
go run ./bench/tcpd "${args[@]}" "$@"
