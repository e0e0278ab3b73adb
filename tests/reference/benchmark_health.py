#!/usr/bin/python3
"""Reference for `arena health`: benchmark health of a judge against a reference judge, computed
independently with numpy/scipy on the same bootstrap draws (the draws are an input, so the two
computations can be compared number for number).

Per round, each judge's battles are weighted by their question's multiplicity and Bradley-Terry is
refitted by maximum likelihood (scipy L-BFGS-B, ties as half a win, rating = 400 r + 1000 with mean
1000). Percentile intervals: numpy.quantile (linear). Separability: share of model pairs whose judge
intervals do not overlap; agreement with confidence (Arena-Hard's definition): over all pairs, +1 where the
judge's and the reference's intervals both separate the pair in the same order, -1 where both separate it in
opposite orders, 0 otherwise, divided by the number of pairs; Brier: mean over pairs of (share of judge rounds
with r_i > r_j - t)^2 with t = [reference's full-data r_i > r_j] (point order) or t = share of the
reference's rounds with r_i > r_j (bootstrap); Spearman and Kendall tau-b: scipy.stats on the full-data
ratings, intervals over the rounds. Monte-Carlo range of a separated count (how stable it is at this many rounds):
the rounds themselves resampled with replacement 200 times (numpy's generator, not mt-arena's, so the two ranges
agree only within Monte-Carlo error), the count recomputed from each resample's percentile intervals, and the 2.5%
and 97.5% quantiles of those counts, widened to whole pairs (floor, ceil).

stdin: JSON {"judge": [[cluster, a, b, score]...], "reference": [...], "clusters": [...], "draws": [[...]...], "level": 0.95}
stdout: JSON with the fields of a health row
or, several judges against one reference in one process: stdin {"reference": [...], "level": 0.95, "judges": [{"judge":
..., "clusters": ..., "draws": ...}, ...]}, stdout a list of rows (the reference's fits on the same models, clusters
and draws are computed once)
"""
import json
import math
import sys

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit
from scipy.stats import kendalltau, spearmanr

A = math.log(10.0)


def fit(ia, ib, y, w, n):
    # the gradient's sums in one bincount over ia then ib: the same additions in the same order as np.add.at over
    # each, so the same floats, without ufunc.at's cost (numpy 1.24: most of the script's CPU)
    iab = np.concatenate([ia, ib])

    def f(r):
        p = expit(A * (r[ia] - r[ib]))
        g = -A * w * (y - p)
        grad = np.bincount(iab, weights=np.concatenate([g, -g]), minlength=n)
        return -np.sum(w * (y * np.log(p) + (1 - y) * np.log(1 - p))), grad

    r = minimize(f, np.zeros(n), jac=True, method="L-BFGS-B", options={"maxiter": 10000, "gtol": 1e-10, "ftol": 0.0}).x
    return 400 * (r - r.mean()) + 1000


def main():
    d = json.load(sys.stdin)
    if "judges" not in d:
        json.dump(health(d, {}), sys.stdout)
        return
    fits = {}
    json.dump([health({**j, "reference": d["reference"], "level": d["level"]}, fits) for j in d["judges"]], sys.stdout)


def health(d, reference_fits):
    """The health row of d's judge; reference_fits keeps the reference's fits by models, clusters and draws."""
    level = d["level"]
    models = sorted({m for b in d["judge"] for m in b[1:3]} & {m for b in d["reference"] for m in b[1:3]})
    idx = {m: k for k, m in enumerate(models)}
    n = len(models)
    cl = {c: k for k, c in enumerate(d["clusters"])}
    draws = np.array(d["draws"], dtype=float)

    def arrays(battles):
        keep = [b for b in battles if b[1] in idx and b[2] in idx]
        return (np.array([idx[b[1]] for b in keep]), np.array([idx[b[2]] for b in keep]), np.array([float(b[3]) for b in keep]), np.array([cl[b[0]] for b in keep]))

    J = arrays(d["judge"])
    R = arrays(d["reference"])
    fj = fit(J[0], J[1], J[2], np.ones(len(J[2])), n)
    sj = np.array([fit(J[0], J[1], J[2], w[J[3]], n) for w in draws])
    key = (tuple(models), tuple(d["clusters"]), draws.tobytes())
    if key not in reference_fits:
        reference_fits[key] = (
            fit(R[0], R[1], R[2], np.ones(len(R[2])), n),
            np.array([fit(R[0], R[1], R[2], w[R[3]], n) for w in draws]),
        )
    fr, sr = reference_fits[key]
    q = [(1 - level) / 2, 1 - (1 - level) / 2]
    ij = np.quantile(sj, q, axis=0)
    ir = np.quantile(sr, q, axis=0)
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]

    def apart(iv, a, b):
        return iv[0, a] > iv[1, b] or iv[0, b] > iv[1, a]

    def separated(s):
        iv = np.quantile(s, q, axis=0)
        return sum(1 for p in pairs if apart(iv, *p))

    def monte_carlo(s, resamples=200):
        rng = np.random.default_rng(d.get("mcSeed", 0))
        counts = [separated(s[rng.integers(0, len(s), len(s))]) for _ in range(resamples)]
        lo, hi = np.quantile(counts, [0.025, 0.975])
        return {"lo": int(math.floor(lo)), "hi": int(math.ceil(hi))}

    sep = [p for p in pairs if apart(ij, *p)]
    both = [p for p in sep if apart(ir, *p)]
    same = sum(1 for a, b in both if np.sign(fj[a] - fj[b]) == np.sign(fr[a] - fr[b]))
    opposite = len(both) - same
    brier = np.mean([(np.mean(sj[:, a] > sj[:, b]) - (1.0 if fr[a] > fr[b] else 0.0)) ** 2 for a, b in pairs])
    brier_boot = np.mean([(np.mean(sj[:, a] > sj[:, b]) - np.mean(sr[:, a] > sr[:, b])) ** 2 for a, b in pairs])
    sp = [spearmanr(sj[k], sr[k])[0] for k in range(len(draws))]
    kt = [kendalltau(sj[k], sr[k])[0] for k in range(len(draws))]
    return {
        "models": models,
        "pairs": len(pairs),
        "separated": len(sep),
        "separability": len(sep) / len(pairs),
        "agreedPairs": same,
        "opposedPairs": opposite,
        "agreementWithConfidence": (same - opposite) / len(pairs),
        "brier": float(brier),
        "brierReferenceBootstrap": float(brier_boot),
        "spearman": {"value": float(spearmanr(fj, fr)[0]), "lo": float(np.quantile(sp, q[0])), "hi": float(np.quantile(sp, q[1]))},
        "kendall": {"value": float(kendalltau(fj, fr)[0]), "lo": float(np.quantile(kt, q[0])), "hi": float(np.quantile(kt, q[1]))},
        "referenceSeparated": sum(1 for p in pairs if apart(ir, *p)),
        "referenceSeparability": sum(1 for p in pairs if apart(ir, *p)) / len(pairs),
        "judgeRatings": dict(zip(models, map(float, fj))),
        "separatedMonteCarlo": monte_carlo(sj),
        "referenceSeparatedMonteCarlo": monte_carlo(sr),
    }


if __name__ == "__main__":
    main()
