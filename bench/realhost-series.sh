#!/usr/bin/env bash
# Records bench/realdata/testdata/host-series.json: labelled performance
# series from real runs of Seshat's exec PI on this machine, for
# bench/realdata (go run ./bench/realdata) to replay beside Mozilla's
# Perfherder series.
#
# Usage, from the repository root:
#   bench/realhost-series.sh        # 14 minutes on 2 shared cores at a load of 2-7; more when busier
#   BUILDS=40 REPEAT=5 GAP=5 OUT=FILE KEEP=1 bench/realhost-series.sh
#
# What it does:
#   1. Builds seshat, the collector (bench/realhost/collect) and the Go
#      workload (bench/realhost/gemm) into a temporary directory.
#   2. Plays BUILDS nightly builds, host-01, host-02, ...: each one `seshat
#      run --build-id host-NN` of one benchmark file with three experiments
#      of REPEAT runs each (repeat:), then `seshat parse --output-lts` of
#      that build's results; GAP seconds between builds, so builds are
#      separate invocations at different times. Each run is the exec PI
#      running a workload that times its own loop (15 timed samples of
#      UNITS operations each, 3 untimed samples first):
#        host-numpy-matmul-512   bench/realhost/work.py --op matmul: numpy's
#                                float32 512x512 product (np.matmul, out=),
#                                one OpenBLAS thread
#        host-gonum-matmul-256   bench/realhost/gemm: the gonum matmul PI's
#                                kernel, float32 256x256, one thread
#        host-numpy-mix          bench/realhost/work.py --op mix: sort, FFT,
#                                cumsum, exp/log (single-threaded, no BLAS)
#   3. Plants real changes by real extra work in the timed region, never by
#      scaling numbers: more iterations of the timed loop (10 -> 11 is 10%
#      more work). The matmul PI (pi: matmul) has no knob for extra work
#      except the product's size, and a larger size does not take
#      proportionally longer (in a first recording on this host, gonum's
#      528x528 products, 9.7% more FLOPs, took no longer than its 512x512
#      ones in the quiet builds), so the products are timed through the
#      exec PI instead, with the same kernels.
#        numpy matmul: 11 units (+10%) in builds 20-31, 10 before and after
#        gonum matmul: 11 units (+10%) from build 24 on
#        numpy mix:    12 units (+20%) from build 16, 11 (+10% of the
#                      base: an improvement) from build 30
#      Each run carries the settings `series` (the signature) and `work`
#      (the planted work in percent of the base).
#   4. Collects every build's payloads (bench/realhost/collect) into the
#      series file, in the shape of ../shared/data/perf-series/series.json:
#      one series per workload, KPI elapsed_ms (median ms of a timed
#      sample, lower is better), `values` the per-build median of the
#      runs, `samples` the runs' values, `work` the planted work per build.
#
# Labels: a build whose `work` differs from the previous build's is
# labelled {"status": "TP", "is_regression": true} when the work grew
# (slower: a regression) and false when it shrank (an improvement). TP
# says the change is real (it was planted), not that it stands above the
# host's noise on that day. Other builds are unlabelled and have no planted
# change; the host's own slow phases and its neighbours' load
# (docs/run.md) are in the data as they came.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILDS=${BUILDS:-40}
REPEAT=${REPEAT:-5}
GAP=${GAP:-5}
OUT=${OUT:-bench/realdata/testdata/host-series.json}
PY=/usr/bin/python3
root=$PWD

tmp=$(mktemp -d "${TMPDIR:-/tmp}/realhost.XXXXXX")
# The runs are kept when KEEP is set or the script fails.
trap 'rc=$?; if [[ $rc -ne 0 || -n ${KEEP:-} ]]; then echo "realhost: runs kept in $tmp" >&2; else rm -rf "$tmp"; fi' EXIT
mkdir -p "$(dirname "$OUT")"

t0=$(date +%s)
echo "realhost: building seshat, the collector and the Go workload in $tmp"
go build -o "$tmp/seshat" ./cmd/seshat
go build -o "$tmp/collect" ./bench/realhost/collect
go build -o "$tmp/gemm" ./bench/realhost/gemm
"$PY" -c 'import numpy' || { echo "realhost: $PY cannot import numpy" >&2; exit 1; }

# plan BUILD prints the units of one build: numpy-matmul gonum-matmul mix.
plan() {
	local b=$1 nu=10 gu=10 mu=10
	if ((b >= 20 && b < 32)); then nu=11; fi
	if ((b >= 24)); then gu=11; fi
	if ((b >= 30)); then
		mu=11
	elif ((b >= 16)); then
		mu=12
	fi
	echo "$nu $gu $mu"
}

mkdir -p "$tmp/results" "$tmp/lts" "$tmp/yaml"
first=""
loads=()
for ((b = 1; b <= BUILDS; b++)); do
	id=$(printf 'host-%02d' "$b")
	read -r nu gu mu < <(plan "$b")
	yaml="$tmp/yaml/$id.yaml"
	cat >"$yaml" <<EOF
# $id of bench/realhost-series.sh
extra_settings: [series, work]
common_settings:
  pi: exec
  repeat: $REPEAT
expe:
  numpy_matmul:
    series: host-numpy-matmul-512
    work: $((nu * 10))
    units: $nu
    command: [$PY, $root/bench/realhost/work.py, --op, matmul, --n, "512", --threads, "1", --units, "{units}", --repetitions, "15", --warmup, "3"]
  gonum_matmul:
    series: host-gonum-matmul-256
    work: $((gu * 10))
    units: $gu
    command: [$tmp/gemm, -n, "256", -threads, "1", -units, "{units}", -repetitions, "15", -warmup, "3"]
  numpy_mix:
    series: host-numpy-mix
    work: $((mu * 10))
    units: $mu
    command: [$PY, $root/bench/realhost/work.py, --op, mix, --units, "{units}", --repetitions, "15", --warmup, "3"]
EOF
	bt=$(date +%s)
	[[ -n $first ]] || first=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	if ! "$tmp/seshat" run -q --benchmark "$yaml" --build-id "$id" --results-dir "$tmp/results/$id"; then
		echo "realhost: $id: some runs failed (left out by the collector)" >&2
	fi
	"$tmp/seshat" parse -q --results-dir "$tmp/results/$id" --output-lts "$tmp/lts/$id.json" >/dev/null
	now=$(date +%s)
	loads+=("$(cut -d' ' -f1 /proc/loadavg)")
	printf 'realhost: build %2d/%d %s: units numpy-matmul %s, gonum-matmul %s, mix %s: %ds (%dm%02ds in all, load %s)\n' \
		"$b" "$BUILDS" "$id" "$nu" "$gu" "$mu" $((now - bt)) $(((now - t0) / 60)) $(((now - t0) % 60)) "${loads[-1]}"
	if ((b < BUILDS && GAP > 0)); then sleep "$GAP"; fi
done
last=$(date -u +%Y-%m-%dT%H:%M:%SZ)

load_range=$(printf '%s\n' "${loads[@]}" | sort -g | sed -n '1p;$p' | paste -sd' ' | awk '{print $1 " to " $2}')
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
npv=$("$PY" -c 'import numpy; print(numpy.__version__)')
commit=$(git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
source="Real runs of Seshat's exec PI on one host, recorded by bench/realhost-series.sh (working tree $commit) from $first to $last: \
$(nproc) cores ($cpu), $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME"), $(go env GOVERSION), numpy $npv with Debian's OpenBLAS; \
a shared VM whose neighbours' load varied during the recording (1-minute load average $load_range after the builds, on $(nproc) cores). \
$BUILDS builds (host-01..), each one 'seshat run --build-id' invocation, $GAP s apart, of $REPEAT runs (repeat: $REPEAT) of each of three workloads \
timing their own loop (15 timed samples of 10-12 operations, 3 untimed): numpy float32 512x512 matmul on one OpenBLAS thread (bench/realhost/work.py --op matmul), \
the gonum matmul PI's float32 kernel at 256x256 on one thread (bench/realhost/gemm), a single-threaded numpy mix of sort, FFT, cumsum and exp/log (work.py --op mix). \
values: per-build median of the runs' elapsed_ms KPI (median ms of a timed sample, lower is better); samples: the runs' values; work: the planted work in % of the base. \
Planted changes are real extra work: more iterations of the timed loop (numpy matmul +10% in builds 20-31; gonum matmul +10% from build 24; mix +20% from build 16, then +10% from build 30). \
Labels: TP at the first build of each planted change, is_regression true when the work grew, false when it shrank; other builds have no planted change."

"$tmp/collect" -kpi elapsed_ms -out "$OUT" -source "$source" \
	-note "host-numpy-matmul-512=10 products per timed sample (work 100), 11 in builds 20-31 (work 110)" \
	-note "host-gonum-matmul-256=10 products per timed sample (work 100) until build 23, 11 from build 24 (work 110)" \
	-note "host-numpy-mix=10 iterations per timed sample (work 100) until build 15, 12 in builds 16-29 (work 120), 11 from build 30 (work 110)" \
	"$tmp"/lts/*.json
now=$(date +%s)
echo "realhost: done in $(((now - t0) / 60))m$(((now - t0) % 60))s: $OUT"
