#!/usr/bin/python3
"""Reference values of analyze.HierBootstrap, in NumPy.

The same algorithm as analyze/hierboot.go, written independently of it:
a two-level (hierarchical) bootstrap of the mean log sample (runs with
replacement, then samples within each drawn run with replacement; Davison &
Hinkley 1997 §3.8, Saravanan et al. 2020), after scaling each run's
deviation from its side's level by sqrt(n/(n-1)); the bootstrap variance of
each side's log level; the log ratio over its standard error against a
Student t with Welch-Satterthwaite degrees of freedom (runs less one a
side). Cases marked "paired" are compared within rounds instead
(analyze.HierBootstrap.ComparePaired): Yuen's test on the 10% trimmed mean
of the rounds' differences of mean log samples, its standard error from
their winsorized standard deviation, n-2g-1 degrees of freedom with
g = floor(0.1 n) (Wilcox 2012, §5.9.5).

    /usr/bin/python3 analyze/testdata/hierboot_reference.py [B]

reads hierboot_cases.json beside it and prints, per case, the ratio, its 95%
interval, p, the degrees of freedom and each side's standard error, for
TestHierBootstrapReference. Only NumPy is needed (Debian's python3-numpy);
the t distribution comes from the regularized incomplete beta function,
by its continued fraction (Numerical Recipes §6.4), to need no SciPy.
"""
import json
import math
import os
import sys

import numpy as np


def betacf(a, b, x):
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / d
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        c = 1 + aa / c
        d = 1 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        c = 1 + aa / c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return h


def betainc(a, b, x):
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log(1 - x))
    if x < (a + 1) / (a + b + 2):
        return front * betacf(a, b, x) / a
    return 1 - front * betacf(b, a, 1 - x) / b


def t_sf(t, nu):
    """P(T > t) for t >= 0."""
    return 0.5 * betainc(nu / 2, 0.5, nu / (nu + t * t))


def t_quantile(p, nu):
    lo, hi = 0.0, 1e3
    for _ in range(200):
        mid = (lo + hi) / 2
        if 1 - t_sf(mid, nu) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def prepare(runs):
    logs = [np.log(np.asarray(r, dtype=float)) for r in runs]
    means = np.array([r.mean() for r in logs])
    level = means.mean()
    n = len(logs)
    scale = math.sqrt(n / (n - 1))
    return [r + (scale - 1) * (m - level) for r, m in zip(logs, means)], level


def resample(rng, runs, B):
    n = len(runs)
    picks = rng.integers(0, n, size=(B, n))
    total = np.zeros(B)
    for i in range(n):
        for k, run in enumerate(runs):
            rows = picks[:, i] == k
            if not rows.any():
                continue
            m = len(run)
            draws = rng.integers(0, m, size=(int(rows.sum()), m))
            total[rows] += run[draws].mean(axis=1)
    return total / n


def compare(a, b, B, rng, conf=0.95):
    la, ea = prepare(a)
    lb, eb = prepare(b)
    va = resample(rng, la, B).var(ddof=1)
    vb = resample(rng, lb, B).var(ddof=1)
    d, v = eb - ea, va + vb
    df = v * v / (va * va / (len(a) - 1) + vb * vb / (len(b) - 1))
    p = 2 * t_sf(abs(d) / math.sqrt(v), df)
    q = t_quantile((1 + conf) / 2, df)
    return {
        "ratio": math.exp(d),
        "lo": math.exp(d - q * math.sqrt(v)),
        "hi": math.exp(d + q * math.sqrt(v)),
        "p": p,
        "df": df,
        "se_a": math.sqrt(va),
        "se_b": math.sqrt(vb),
    }


def compare_paired(a, b, B, rng, conf=0.95):
    """Rounds as the units: a[i] and b[i] ran in round i. Yuen's test on
    the 10% trimmed mean of the rounds' differences of mean logs."""
    ma = np.array([np.log(np.asarray(r, dtype=float)).mean() for r in a])
    mb = np.array([np.log(np.asarray(r, dtype=float)).mean() for r in b])
    n = len(ma)
    g = int(math.floor(0.1 * n))
    diffs = np.sort(mb - ma)
    d = diffs[g:n - g].mean()
    w = np.clip(diffs, diffs[g], diffs[n - g - 1])
    se = w.std(ddof=1) / ((1 - 2 * g / n) * math.sqrt(n))
    df = n - 2 * g - 1
    p = 2 * t_sf(abs(d) / se, df)
    q = t_quantile((1 + conf) / 2, df)
    r = compare(a, b, B, rng, conf)
    r.update({
        "ratio": math.exp(d),
        "lo": math.exp(d - q * se),
        "hi": math.exp(d + q * se),
        "p": p,
        "df": df,
    })
    return r


def main():
    B = int(sys.argv[1]) if len(sys.argv) > 1 else 400000
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "hierboot_cases.json")) as f:
        cases = json.load(f)
    rng = np.random.default_rng(1997)
    for c in cases:
        if c.get("paired"):
            r = compare_paired(c["a"], c["b"], B, rng)
        else:
            r = compare(c["a"], c["b"], B, rng)
        nums = ", ".join("%.6g" % r[k] for k in ("ratio", "lo", "hi", "p", "df", "se_a", "se_b"))
        print("{%s, %s}," % (json.dumps(c["name"]), nums))


if __name__ == "__main__":
    main()
