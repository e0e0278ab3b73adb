#!/usr/bin/python3
"""Reference for `arena intervals --method sandwich`: Bradley-Terry by maximum likelihood (scipy), its
cluster-robust (sandwich) covariance, Student-t intervals, and the rank bounds from simultaneous max-t
intervals of all rating differences. Written independently of the TypeScript: the ratings are fitted
with every model free and the sum-to-zero constraint imposed by projection (a pseudo-inverse of the
information matrix), not by pinning one model; the max-t critical value comes from numpy's own
multivariate-t draws.

stdin: JSON {"battles": [[cluster, model_a, model_b, score], ...], "level": 0.95}
       score 1 = model_a won, 0 = model_b won, 0.5 = tie
stdout: JSON {"models": {model: {"rating", "se", "lo", "hi", "rankBest", "rankWorst", "marginalRankBest",
        "marginalRankWorst"}}, "critical": c, "marginalCritical": {model: c_k}, "clusters": C}
"""
import json
import math
import sys

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit
from scipy.stats import t as student_t

A = math.log(10.0)


def main():
    data = json.load(sys.stdin)
    level = data["level"]
    battles = data["battles"]
    models = sorted({b[1] for b in battles} | {b[2] for b in battles})
    idx = {m: k for k, m in enumerate(models)}
    n = len(models)
    ia = np.array([idx[b[1]] for b in battles])
    ib = np.array([idx[b[2]] for b in battles])
    y = np.array([float(b[3]) for b in battles])
    clusters = [b[0] for b in battles]
    cl_ids = {c: k for k, c in enumerate(dict.fromkeys(clusters))}
    cl = np.array([cl_ids[c] for c in clusters])
    C = len(cl_ids)

    def nll(r):
        p = expit(A * (r[ia] - r[ib]))
        g = -A * (y - p)
        grad = np.zeros(n)
        np.add.at(grad, ia, g)
        np.add.at(grad, ib, -g)
        return -np.sum(y * np.log(p) + (1 - y) * np.log(1 - p)), grad

    res = minimize(nll, np.zeros(n), jac=True, method="L-BFGS-B", options={"maxiter": 10000, "gtol": 1e-12, "ftol": 0.0})
    r = res.x - res.x.mean()
    p = expit(A * (r[ia] - r[ib]))
    # per-battle design rows x = A (e_a - e_b): score u = (y - p) x, information sum p(1-p) x x^T
    X = np.zeros((len(battles), n))
    X[np.arange(len(battles)), ia] += A
    X[np.arange(len(battles)), ib] -= A
    H = (X * (p * (1 - p))[:, None]).T @ X
    U = X * (y - p)[:, None]
    G = np.zeros((C, n))
    np.add.at(G, cl, U)
    meat = G.T @ G * C / (C - 1)
    # The ratings are identified only up to a common shift: H and the meat both have the all-ones vector in
    # their null space, so their inverse exists only on the sum-to-zero subspace. Work there, in an explicit
    # orthonormal basis B of it (Helmert contrasts): V = B Hs^-1 (B' meat B) Hs^-1 B' with Hs = B' H B, which
    # is positive definite. A pseudo-inverse of H or a Cholesky of the singular V (even with a small ridge)
    # instead depends on how the BLAS rounds the null direction: on the reference BLAS pinv kept a 1e-12
    # singular value and V came out 1e15 large.
    B = np.zeros((n, n - 1))
    for k in range(1, n):
        B[:k, k - 1] = 1.0
        B[k, k - 1] = -float(k)
        B[:, k - 1] /= math.sqrt(k * (k + 1))
    Hs = B.T @ H @ B
    Hs_inv_Bt = np.linalg.solve(Hs, B.T)
    Vs = Hs_inv_Bt @ meat @ Hs_inv_Bt.T * 400.0**2
    Vs = (Vs + Vs.T) / 2
    # factor the subspace covariance by its eigen-decomposition, rounding-level negatives clipped to zero
    w, Q = np.linalg.eigh(Vs)
    w = np.clip(w, 0.0, None)
    L = B @ (Q * np.sqrt(w))  # L @ L.T == V, zero along the all-ones direction
    V = L @ L.T
    rating = 400.0 * r + 1000.0
    se = np.sqrt(np.clip(np.diag(V), 0.0, None))
    q = student_t.ppf(1 - (1 - level) / 2, C - 1)
    # simultaneous max-t over all pairs, multivariate t with C - 1 degrees of freedom
    rng = np.random.default_rng(12345)
    draws = 200000
    Z = rng.standard_normal((draws, n - 1)) @ L.T
    Z /= np.sqrt(rng.chisquare(C - 1, size=draws) / (C - 1))[:, None]
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    se_d = np.array([math.sqrt(max(V[i, i] + V[j, j] - 2 * V[i, j], 0.0)) for i, j in pairs])
    D = np.stack([Z[:, i] - Z[:, j] for i, j in pairs], axis=1)
    T = np.max(np.abs(D) / se_d[None, :], axis=1)
    c = float(np.quantile(T, level))
    above = np.zeros(n, dtype=int)
    below = np.zeros(n, dtype=int)
    for (i, j), s in zip(pairs, se_d):
        d = rating[i] - rating[j]
        if d - c * s > 0:
            below[i] += 1
            above[j] += 1
        elif -d - c * s > 0:
            below[j] += 1
            above[i] += 1
    # marginal rank bounds (Mogstad, Romano, Shaikh and Wilhelm, "Inference for ranks"): for each model k, the
    # max-t critical value over its own n - 1 differences only, from the same draws
    se_full = np.sqrt(np.clip(np.diag(V)[:, None] + np.diag(V)[None, :] - 2 * V, 0.0, None))
    marginal = {}
    critical_own = {}
    for k in range(n):
        others = [j for j in range(n) if j != k]
        Tk = np.max(np.abs(Z[:, [k]] - Z[:, others]) / se_full[k, others][None, :], axis=1)
        ck = float(np.quantile(Tk, level))
        critical_own[models[k]] = ck
        d = rating[k] - rating[others]
        h = ck * se_full[k, others]
        marginal[k] = (int(1 + np.sum(d + h < 0)), int(n - np.sum(d - h > 0)))
    out = {
        m: {
            "rating": float(rating[k]),
            "se": float(se[k]),
            "lo": float(rating[k] - q * se[k]),
            "hi": float(rating[k] + q * se[k]),
            "rankBest": int(1 + above[k]),
            "rankWorst": int(n - below[k]),
            "marginalRankBest": marginal[k][0],
            "marginalRankWorst": marginal[k][1],
        }
        for m, k in idx.items()
    }
    json.dump({"models": out, "critical": c, "marginalCritical": critical_own, "clusters": C}, sys.stdout)


if __name__ == "__main__":
    main()
