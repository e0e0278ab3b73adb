#!/usr/bin/python3
"""Reference for core/stats/settle-bound.ts (the fewest matches that could reach the full plan's rank certainty),
written independently of the TypeScript: its own Bradley-Terry fit (scipy, with the tie pseudo-games of the
scheduler's prior), its own sandwich covariance and max-t critical value (numpy draws), and the design problem
solved by scipy's SLSQP on the primal instead of a log-barrier Newton method.

The problem: minimise sum_e n_e over model pairs e with 0 <= n_e <= N_e (the plan's matches of the pair) such
that, for every pair r the full plan's simultaneous intervals separate (z_r = |gap_r| / se_r > c), the model-based
variance of r's difference, u_r' L(n)^+ u_r with L(n) = sum_e n_e h_e u_e u_e' (h_e = one match's Fisher
information at the full plan's ratings), is at most (z_r / c)^2 times its value at the full plan.

stdin: JSON {"battles": [[cluster, model_a, model_b, score], ...], "plan": [[model_a, model_b, matches], ...],
             "level": 0.95, "prior": 1, "critical": optional, to check the design problem alone}
stdout: JSON {"matches": total, "share": total / plan matches, "separated": pairs, "critical": c,
              "design": {"a\\u0000b": n_e}}
"""
import json
import math
import sys

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

A = math.log(10.0)
SCALE = 400.0


def helmert(n):
    B = np.zeros((n, n - 1))
    for k in range(1, n):
        B[:k, k - 1] = 1.0
        B[k, k - 1] = -float(k)
        B[:, k - 1] /= math.sqrt(k * (k + 1))
    return B


def main():
    data = json.load(sys.stdin)
    level, prior = data["level"], data.get("prior", 0)
    battles = data["battles"]
    models = sorted({b[1] for b in battles} | {b[2] for b in battles})
    idx = {m: k for k, m in enumerate(models)}
    n = len(models)
    ia = np.array([idx[b[1]] for b in battles])
    ib = np.array([idx[b[2]] for b in battles])
    y = np.array([float(b[3]) for b in battles])
    cl_ids = {c: k for k, c in enumerate(dict.fromkeys(b[0] for b in battles))}
    cl = np.array([cl_ids[b[0]] for b in battles])
    C = len(cl_ids)
    met = sorted({(min(a, b), max(a, b)) for a, b in zip(ia, ib)})
    pa = np.array([p[0] for p in met])
    pb = np.array([p[1] for p in met])

    def nll(r):
        p = expit(A * (r[ia] - r[ib]))
        q = expit(A * (r[pa] - r[pb]))
        g = -A * (y - p)
        gq = -A * prior * (0.5 - q)
        grad = np.zeros(n)
        np.add.at(grad, ia, g)
        np.add.at(grad, ib, -g)
        np.add.at(grad, pa, gq)
        np.add.at(grad, pb, -gq)
        f = -np.sum(y * np.log(p) + (1 - y) * np.log(1 - p)) - prior * np.sum(0.5 * np.log(q) + 0.5 * np.log(1 - q))
        return f, grad

    res = minimize(nll, np.zeros(n), jac=True, method="L-BFGS-B", options={"maxiter": 10000, "gtol": 1e-12, "ftol": 0.0})
    r = res.x - res.x.mean()
    B = helmert(n)

    def rows(i, j, w):
        X = np.zeros((len(i), n))
        X[np.arange(len(i)), i] += A
        X[np.arange(len(i)), j] -= A
        pr = expit(A * (r[i] - r[j]))
        return X, pr, (X * (w * pr * (1 - pr))[:, None]).T @ X

    X, p, H = rows(ia, ib, np.ones(len(ia)))
    H = H + rows(pa, pb, np.full(len(pa), float(prior)))[2]
    G = np.zeros((C, n))
    np.add.at(G, cl, X * (y - p)[:, None])
    meat = G.T @ G * C / (C - 1)
    Hs_inv_Bt = np.linalg.solve(B.T @ H @ B, B.T)
    Vs = Hs_inv_Bt @ meat @ Hs_inv_Bt.T * SCALE**2
    w, Q = np.linalg.eigh((Vs + Vs.T) / 2)
    Lf = B @ (Q * np.sqrt(np.clip(w, 0.0, None)))
    V = Lf @ Lf.T
    rating = SCALE * r

    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    se = np.array([math.sqrt(max(V[i, i] + V[j, j] - 2 * V[i, j], 0.0)) for i, j in pairs])
    if data.get("critical") is not None:  # to check the design problem alone, at the caller's critical value
        c = float(data["critical"])
    else:
        rng = np.random.default_rng(2024)
        draws = 200000
        Z = rng.standard_normal((draws, n - 1)) @ Lf.T
        Z /= np.sqrt(rng.chisquare(C - 1, size=draws) / (C - 1))[:, None]
        T = np.max(np.abs(np.stack([Z[:, i] - Z[:, j] for i, j in pairs], axis=1)) / se[None, :], axis=1)
        c = float(np.quantile(T, level))

    plan = {}
    for a, b, k in data["plan"]:
        i, j = sorted((idx[a], idx[b]))
        plan[(i, j)] = plan.get((i, j), 0) + k
    edges = sorted(plan)
    N = np.array([plan[e] for e in edges], dtype=float)
    # one match's information about r_i - r_j in rating points: (A / SCALE)^2 p (1 - p)
    h = np.array([(A / SCALE) ** 2 * expit(A * (r[i] - r[j])) * (1 - expit(A * (r[i] - r[j]))) for i, j in edges])
    U = np.zeros((len(edges), n))
    for e, (i, j) in enumerate(edges):
        U[e, i], U[e, j] = 1.0, -1.0

    def cov(x):
        L = (U * (x * h)[:, None]).T @ U
        return B @ np.linalg.solve(B.T @ L @ B, B.T)

    full = cov(N)
    targets = []
    for (i, j), s in zip(pairs, se):
        z = abs(rating[i] - rating[j]) / s
        if z > c:
            u = np.zeros(n)
            u[i], u[j] = 1.0, -1.0
            targets.append((u, float(u @ full @ u) * (z / c) ** 2))
    Ut = np.array([t[0] for t in targets])
    v = np.array([t[1] for t in targets])
    scale = float(v.mean())

    def cons(x):
        return (v - np.einsum("rk,kl,rl->r", Ut, cov(x), Ut)) / scale

    def cons_jac(x):
        P = cov(x)
        a = Ut @ P @ U.T  # a[r, e] = u_r' P u_e
        return (h[None, :] * a**2) / scale  # d(v - f_r)/dx_e = h_e a_re^2

    res = minimize(
        lambda x: (x.sum() / N.sum(), np.ones(len(x)) / N.sum()),
        N * 0.99,
        jac=True,
        method="SLSQP",
        bounds=[(1e-9, k) for k in N],
        constraints=[{"type": "ineq", "fun": cons, "jac": cons_jac}],
        options={"maxiter": 2000, "ftol": 1e-12},
    )
    x = res.x
    json.dump(
        {
            "matches": float(x.sum()),
            "share": float(x.sum() / N.sum()),
            "separated": len(targets),
            "critical": c,
            "converged": bool(res.success),
            "worstSlack": float(cons(x).min() * scale),
            "design": {f"{models[i]}\u0000{models[j]}": float(x[e]) for e, (i, j) in enumerate(edges)},
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
