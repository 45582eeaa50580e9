"""Small real workloads for the exec PI, used by bench/realhost-series.sh.

One sample times `units` iterations of one unit of numpy work:

  --op matmul  np.matmul(a, b, out=c) of two n x n float32 matrices (as the
               numpy matmul PI does), on --threads BLAS threads;
  --op mix     sort a vector of 2^14 float64, a real FFT of 2^13 points, a
               cumulative sum and an element-wise exp/log pass:
               single-threaded, no BLAS.

A planted slowdown is an extra iteration inside the timed loop (units 10
-> 11 is 10% more work), never a scaled number; --extra K plants it as a
change of the code would, K more iterations per sample with the same
parameters (bench/realhost). Prints one pi.json
document on stdout, as the exec PI expects:

    /usr/bin/python3 work.py --op matmul --n 512 --threads 1 --units 10
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--op", choices=["matmul", "mix"], required=True)
    ap.add_argument("--units", type=int, required=True)
    ap.add_argument("--extra", type=int, default=0,
                    help="iterations per sample beyond units, not reported: a planted slowdown of the code")
    ap.add_argument("--n", type=int, default=512, help="matmul: matrix size")
    ap.add_argument("--threads", type=int, default=0, help="BLAS threads (0: numpy's default)")
    ap.add_argument("--repetitions", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.units < 1 or args.repetitions < 1 or args.warmup < 0 or args.n < 1 or args.extra < 0:
        sys.exit("work.py: units, repetitions and n must be >= 1, warmup and extra >= 0")
    if args.threads > 0:
        # Read by OpenBLAS when numpy loads it: set before the import.
        for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[v] = str(args.threads)
    import numpy as np

    rng = np.random.default_rng(args.seed)
    params = {"device": "cpu", "units": args.units, "repetitions": args.repetitions,
              "warmup": args.warmup, "seed": args.seed}
    if args.op == "matmul":
        a = rng.uniform(0.5, 1.5, (args.n, args.n)).astype(np.float32)
        b = rng.uniform(0.5, 1.5, (args.n, args.n)).astype(np.float32)
        c = np.empty_like(a)

        def unit():
            np.matmul(a, b, out=c)
            return float(c[0, 0])

        name = "PiHostMatmul"
        params.update(dtype="float32", matrix_size=args.n, threads=args.threads or "default")
    else:
        x = rng.uniform(0.5, 1.5, 1 << 14)
        y = rng.uniform(0.5, 1.5, 1 << 13)

        def unit():
            s = np.sort(x)
            f = np.fft.rfft(y)
            cs = np.cumsum(s)
            e = np.log(np.exp(y * 0.5) + 1.0)
            return float(s[1] + abs(f[1]) + cs[-1] + e[0])

        name = "PiHostWork"
        params.update(dtype="float64")

    sink = 0.0
    iterations = args.units + args.extra
    for _ in range(args.warmup):
        for _ in range(iterations):
            sink += unit()
    samples = []
    for _ in range(args.repetitions):
        t0 = time.perf_counter_ns()
        for _ in range(iterations):
            sink += unit()
        samples.append((time.perf_counter_ns() - t0) / 1e6)

    mean = statistics.fmean(samples)
    cv = statistics.pstdev(samples) / mean if mean > 0 else 0.0
    doc = {
        "component": "numpy",
        "name": name,
        "@parameters": params,
        "@result": {
            "elapsed": statistics.median(samples),
            "samples_ms": samples,
            "ci95_low": min(samples),
            "ci95_high": max(samples),
            "cv": cv,
        },
        "versions": {"numpy": np.__version__, "python": platform.python_version()},
        "checksum": sink,
    }
    json.dump(doc, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
