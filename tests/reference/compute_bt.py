#!/usr/bin/python3
"""Reference Bradley-Terry fit: the method of FastChat's `compute_bt` (Chatbot Arena rating code),
as described in /work/shared/docs/mt-bench-protocol.md section 7, written independently here.

Method: battles are collapsed to distinct (model_a, model_b, outcome) triples weighted by how often
each occurs (outcome 1 = model_a won, 0 = model_b won, 0.5 = any other label, a tie). The weighted
negative log-likelihood  -sum w [y log s(a d) + (1 - y) log(1 - s(a d))],  d = r_a - r_b, a = ln 10,
is minimised with scipy's L-BFGS-B from r = 0 with the analytic gradient (jac=True), maxiter=100,
gtol=1e-6 and scipy's other defaults. rating = 400 r + 1000 (FastChat also shifts everything so that
mixtral-8x7b-instruct-v0.1 sits at 1114; no MT-Bench model triggers that, so it is left out). Models are numbered in order of first
appearance over the model_a column, then the model_b column.

stdin: JSON [[model_a, model_b, winner], ...]
stdout: JSON {"fastchat": {model: rating}, "converged": {model: rating}}
  "fastchat"  - the settings above (what FastChat prints)
  "converged" - the same objective minimised to full precision (ftol=0, gtol=1e-12, maxiter=10000);
                with the default settings L-BFGS-B stops on its relative-reduction test (ftol) a few
                1e-3 rating points short of the optimum, and this tells the two apart.
"""
import json
import math
import sys

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

FASTCHAT_OPTIONS = {"maxiter": 100, "gtol": 1e-6}
CONVERGED_OPTIONS = {"maxiter": 10000, "gtol": 1e-12, "ftol": 0.0}


def collapse(battles):
    names = []
    number = {}
    for column in (0, 1):
        for battle in battles:
            if battle[column] not in number:
                number[battle[column]] = len(names)
                names.append(battle[column])
    score = {"model_a": 2, "model_b": 0}  # in half points; anything else is a tie (1)
    rows = np.array([[number[a], number[b], score.get(w, 1)] for a, b, w in battles], dtype=np.int64)
    triples, counts = np.unique(rows, axis=0, return_counts=True)
    return names, triples[:, :2], triples[:, 2] / 2.0, counts.astype(np.float64)


def objective(r, pairs, y, w, a):
    p = expit(a * (r[pairs[:, 0]] - r[pairs[:, 1]]))
    nll = -np.sum(w * (y * np.log(p) + (1.0 - y) * np.log(1.0 - p)))
    g_pair = -a * w * (y - p)
    grad = np.zeros_like(r)
    np.add.at(grad, pairs[:, 0], g_pair)
    np.add.at(grad, pairs[:, 1], -g_pair)
    return nll, grad


def fit(battles, options):
    names, pairs, y, w = collapse(battles)
    res = minimize(objective, np.zeros(len(names)), args=(pairs, y, w, math.log(10.0)), jac=True, method="L-BFGS-B", options=options)
    return {name: float(400.0 * res.x[k] + 1000.0) for k, name in enumerate(names)}


if __name__ == "__main__":
    data = json.load(sys.stdin)
    json.dump({"fastchat": fit(data, FASTCHAT_OPTIONS), "converged": fit(data, CONVERGED_OPTIONS)}, sys.stdout)
