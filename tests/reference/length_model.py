#!/usr/bin/python3
"""Reference for the joint length model of `arena length` (issue #13, defect 4), written independently of
src/core with numpy/scipy (and statsmodels for the plain linear comparison when it is installed).

stdin: JSON {"matches": [[question, model_1, model_2, len_1, len_2, y], ...], "lambda_per_match": 0.2}
  y: 1 model_1 won, 0 model_2 won, 0.5 tie or inconsistent (errors already left out)
stdout: JSON {"sigma", "beta", "se_beta", "se_beta_cluster", "per_thousand", "lc": {model: rate}, "linear": {"beta", "se"}}

Model: logit P(model_1 wins) = theta_1 - theta_2 + beta * tanh(delta / sigma) + (psi_1 - psi_2) * gamma_q
- sigma: sample standard deviation (ddof 1) of delta = len_1 - len_2 over the matches
- gamma: per match, the share of the other matches of its question won by the model with the higher plain
  Bradley-Terry rating (ties half; leave-one-out; the plain fit by L-BFGS-B on the same matches),
  standardised over the matches with the population sd
- penalty: lambda / 2 * sum(psi^2), lambda = lambda_per_match * matches / models; theta, beta free
  (theta of the first model, in order of first appearance, fixed at 0)
- objective: the fractional-response binomial log-likelihood; minimised by scipy's L-BFGS-B to gtol 1e-11
- se_beta: sqrt of the beta entry of the inverse penalised Hessian (X' W X + P), built here with numpy
- se_beta_cluster: the question-clustered sandwich, H^-1 (sum_q s_q s_q') H^-1 * Q / (Q - 1), with s_q the sum
  over question q's matches of the unpenalised score x (y - p) and H the penalised Hessian above
- lc: per model, the mean over its matches of the predicted win probability at delta = 0
- linear: an unpenalised Bradley-Terry + (delta / 1000) logistic fit without the difficulty term
  (statsmodels GLM Binomial when available, else scipy), for comparison with the per-1,000-character slope
"""
import json
import math
import sys

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

d = json.load(sys.stdin)
rows = d["matches"]
names = []
for r in rows:
    for m in (r[1], r[2]):
        if m not in names:
            names.append(m)
mi = {m: k for k, m in enumerate(names)}
qs = sorted({r[0] for r in rows})
qi = {q: k for k, q in enumerate(qs)}
M, Q, N = len(names), len(qs), len(rows)
i = np.array([mi[r[1]] for r in rows])
j = np.array([mi[r[2]] for r in rows])
q = np.array([qi[r[0]] for r in rows])
delta = np.array([r[3] - r[4] for r in rows], dtype=float)
y = np.array([r[5] for r in rows], dtype=float)


def logistic_fit(X, y, penalty):
    def f(b):
        eta = X @ b
        ll = np.sum(y * eta - np.logaddexp(0, eta)) - 0.5 * np.sum(penalty * b * b)
        grad = X.T @ (y - expit(eta)) - penalty * b
        return -ll, -grad

    res = minimize(f, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B", options={"maxiter": 100000, "gtol": 1e-11, "ftol": 0.0})
    b = res.x
    p = expit(X @ b)
    H = X.T @ (X * (p * (1 - p))[:, None]) + np.diag(penalty)
    return b, np.linalg.inv(H), p


# plain Bradley-Terry (natural-log units), theta_0 = 0
Xbt = np.zeros((N, M - 1))
for k in range(N):
    if i[k] > 0:
        Xbt[k, i[k] - 1] += 1
    if j[k] > 0:
        Xbt[k, j[k] - 1] -= 1
bt, _, _ = logistic_fit(Xbt, y, np.zeros(M - 1))
plain = np.concatenate([[0.0], bt])

sigma = float(np.std(delta, ddof=1))
share = np.zeros(Q)
count = np.zeros(Q)
own = np.full(N, np.nan)
for k in range(N):
    if plain[i[k]] != plain[j[k]]:
        own[k] = y[k] if plain[i[k]] > plain[j[k]] else 1 - y[k]
        share[q[k]] += own[k]
        count[q[k]] += 1
raw = np.full(N, np.nan)
for k in range(N):  # leave-one-out: the other matches of the question
    self = 0 if np.isnan(own[k]) else 1
    if count[q[k]] - self > 0:
        raw[k] = (share[q[k]] - (own[k] if self else 0)) / (count[q[k]] - self)
ok = ~np.isnan(raw)
gamma = np.zeros(N)
gamma[ok] = (raw[ok] - raw[ok].mean()) / raw[ok].std()

lam = d["lambda_per_match"] * N / M
X = np.zeros((N, (M - 1) + 1 + M))
X[:, : M - 1] = Xbt
X[:, M - 1] = np.tanh(delta / sigma)
for k in range(N):
    X[k, M + i[k]] += gamma[k]
    X[k, M + j[k]] -= gamma[k]
pen = np.concatenate([np.zeros(M), np.full(M, lam)])
b, inv, pfit = logistic_fit(X, y, pen)
scores = X * (y - pfit)[:, None]
S = np.zeros((Q, X.shape[1]))
np.add.at(S, q, scores)
Vc = inv @ (S.T @ S) @ inv * Q / (Q - 1)
theta = np.concatenate([[0.0], b[: M - 1]])
beta = b[M - 1]
psi = b[M:]
p0 = expit(theta[i] - theta[j] + (psi[i] - psi[j]) * gamma)
lc = {}
for m in range(M):
    lc[names[m]] = float((np.sum(p0[i == m]) + np.sum(1 - p0[j == m])) / (np.sum(i == m) + np.sum(j == m)))

Xlin = np.concatenate([Xbt, (delta / 1000.0)[:, None]], axis=1)
try:
    import statsmodels.api as sm

    res = sm.GLM(y, Xlin, family=sm.families.Binomial()).fit()
    linear = {"beta": float(res.params[-1]), "se": float(res.bse[-1]), "by": "statsmodels"}
except ImportError:
    bl, invl, _ = logistic_fit(Xlin, y, np.zeros(Xlin.shape[1]))
    linear = {"beta": float(bl[-1]), "se": float(math.sqrt(invl[-1, -1])), "by": "scipy"}

print(json.dumps({"sigma": sigma, "beta": float(beta), "se_beta": float(math.sqrt(inv[M - 1, M - 1])), "se_beta_cluster": float(math.sqrt(Vc[M - 1, M - 1])), "per_thousand": float(beta / sigma * 1000), "lc": lc, "linear": linear}))
