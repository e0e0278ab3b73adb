#!/usr/bin/python3
"""Reference for `arena ratings --inconsistent drop`: FastChat's older `compute_mle_elo` (fastchat/serve/
monitor/elo_analysis.py), written independently here with numpy/scipy (FastChat uses pandas pivot tables
and sklearn's LogisticRegression, neither installed here; the same unpenalised logistic likelihood is
minimised with scipy instead).

FastChat's convention: a win matrix W[a, b] = 2 * (battles a won against b) + (ties between a and b),
where a tie is "tie" or "tie (bothbad)" only: a "tie (inconsistent)" battle is in neither table, so it is
dropped. For every ordered pair (a, b) with battles, a row x (ln 10 at a, -ln 10 at b) with label 1 and
weight W[a, b], and the same row with label 0 and weight W[b, a]; logistic regression without intercept
or penalty; rating = 400 coef + 1000 (coefficients of mean 0, as sklearn's lbfgs from zero gives them).

stdin: JSON [[model_a, model_b, winner], ...] with winner as the release spells it
stdout: JSON {model: rating}
"""
import json
import math
import sys

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

BASE = 10.0


def main():
    battles = json.load(sys.stdin)
    models = sorted({m for b in battles for m in b[:2]})
    k = {m: i for i, m in enumerate(models)}
    p = len(models)
    W = np.zeros((p, p))
    for a, b, w in battles:
        if w == "model_a":
            W[k[a], k[b]] += 2
        elif w == "model_b":
            W[k[b], k[a]] += 2
        elif w in ("tie", "tie (bothbad)"):
            W[k[a], k[b]] += 1
            W[k[b], k[a]] += 1
        # "tie (inconsistent)": dropped
    rows, y, weights = [], [], []
    for a in range(p):
        for b in range(p):
            if a == b or W[a, b] + W[b, a] == 0:
                continue
            x = np.zeros(p)
            x[a], x[b] = math.log(BASE), -math.log(BASE)
            rows += [x, x]
            y += [1.0, 0.0]
            weights += [W[a, b], W[b, a]]
    X, Y, S = np.array(rows), np.array(y), np.array(weights)

    def nll(beta):
        z = X @ beta
        q = expit(z)
        eps = 1e-300
        f = -np.sum(S * (Y * np.log(q + eps) + (1 - Y) * np.log(1 - q + eps)))
        return f, X.T @ (S * (q - Y))

    beta = minimize(nll, np.zeros(p), jac=True, method="L-BFGS-B", options={"maxiter": 10000, "gtol": 1e-12, "ftol": 0.0}).x
    beta -= beta.mean()
    json.dump({m: float(400 * beta[i] + 1000) for i, m in enumerate(models)}, sys.stdout)


if __name__ == "__main__":
    main()
