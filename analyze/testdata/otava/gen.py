#!/usr/bin/env python3
"""Writes vectors.json: series with the change points Apache Otava finds.

The Go tests compare analyze.EDivisive with these. Run with the path of an
Otava checkout (its otava/ package, numpy and scipy importable):

    python3 gen.py /path/to/otava > vectors.json

"weak" is Otava's split step (weak change points, statistics recomputed on
the whole series); "final" is its merge step with one change: after a drop,
the change points either side of the dropped one are recomputed (Otava
recomputes the two after it; see apache/otava#96).
"""
import json
import sys

import numpy as np

sys.path.insert(0, sys.argv[1])
from otava.analysis import TTestSignificanceTester, split  # noqa: E402


def merge_neighbours(cps, series, max_pvalue, min_magnitude):
    tester = TTestSignificanceTester(max_pvalue)
    while cps:
        weakest = max(cps, key=lambda c: c.stats.pvalue)
        if weakest.stats.pvalue < max_pvalue:
            weakest = min(cps, key=lambda c: c.stats.change_magnitude())
            if weakest.stats.change_magnitude() > min_magnitude:
                return cps
        i = cps.index(weakest)
        del cps[i]
        intervals = tester.get_intervals(cps)
        for j in (i - 1, i):
            if 0 <= j < len(cps):
                cps[j] = tester.change_point(cps[j].to_candidate(), series, intervals)
    return cps


def first_pass(p):
    return p * 10 if p < 0.05 else (p * 2 if p < 0.5 else p)


def main():
    rng = np.random.default_rng(20240601)
    out = []
    params = [(50, 0.001, 0.0), (30, 0.01, 0.0), (10, 0.001, 0.0), (50, 0.001, 0.05), (20, 0.05, 0.01)]
    for k in range(40):
        n = int(rng.integers(8, 160))
        level = 100.0
        series = []
        for _ in range(n):
            if rng.random() < 0.03:
                level *= 1 + 0.3 * (rng.random() - 0.5)
            series.append(round(float(level * (1 + 0.02 * rng.standard_normal())), 6))
        window, max_p, min_mag = params[k % len(params)]
        weak = split(list(series), window, first_pass(max_p))
        final = merge_neighbours(list(weak), list(series), max_p, min_mag)
        out.append({
            "series": series, "window_len": window, "max_pvalue": max_p, "min_magnitude": min_mag,
            "weak": [{"index": int(c.index), "pvalue": float(c.stats.pvalue)} for c in weak],
            "final": [{"index": int(c.index), "pvalue": float(c.stats.pvalue),
                       "mean_before": float(c.stats.mean_1), "mean_after": float(c.stats.mean_2),
                       "stddev_before": float(c.stats.std_1), "stddev_after": float(c.stats.std_2)} for c in final],
        })
    json.dump({"generator": "gen.py", "otava_commit": "1ceb153", "cases": out}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
