#!/usr/bin/python3
"""FastChat's Bradley-Terry fit, as `compute_bt` in fastchat/serve/monitor/rating_systems.py
(lm-sys/FastChat 0e6d3e4; see /work/shared/docs/mt-bench-protocol.md section 7).

Reads battles as JSON on stdin: [[model_a, model_b, winner], ...] with winner one of
"model_a", "model_b" or anything else (a tie). Prints JSON {"fastchat": {"model": rating, ...},
"converged": {...}}: "fastchat" is compute_bt exactly; "converged" is the same code minimised to
full precision (ftol=0, gtol=1e-12, maxiter=10000), added here for the check: FastChat's L-BFGS-B
stops on scipy's default relative-reduction test (ftol), about 1e-3 rating points short of the optimum.

Kept as close to FastChat's code as possible (numpy + scipy only; pandas' factorize is spelled out):
the battles are collapsed to unique (model_a, model_b, outcome) rows weighted by their counts, and
-sum w*[y log s(a(ra-rb)) + (1-y) log(1-s(a(ra-rb)))] with a = ln 10 is minimised by L-BFGS-B from
x0 = 0 with jac=True, maxiter=100, gtol=1e-6. rating = 400 r + 1000 (plus FastChat's mixtral anchor,
which MT-Bench data never triggers).
"""
import json
import math
import sys

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit


def preprocess_for_bt(battles):
    n_rows = len(battles)
    # pd.factorize(pd.concat([model_a, model_b])): ids in order of first appearance
    models, index = [], {}
    for name in [b[0] for b in battles] + [b[1] for b in battles]:
        if name not in index:
            index[name] = len(models)
            models.append(name)
    model_indices = np.array([index[b[0]] for b in battles] + [index[b[1]] for b in battles], dtype=np.int32)
    matchups = np.column_stack([model_indices[:n_rows], model_indices[n_rows:]])
    schedule = np.full((n_rows, 3), fill_value=1, dtype=np.int32)
    schedule[:, [0, 1]] = matchups
    winners = np.array([b[2] for b in battles])
    # model_a win -> 2, tie -> 1 (prefilled), model_b win -> 0
    schedule[winners == "model_a", 2] = 2
    schedule[winners == "model_b", 2] = 0
    matchups_outcomes, weights = np.unique(schedule, return_counts=True, axis=0)
    matchups = matchups_outcomes[:, [0, 1]]
    outcomes = matchups_outcomes[:, 2].astype(np.float64) / 2.0
    weights = weights.astype(np.float64)
    return matchups, outcomes, models, weights


def bt_loss_and_grad(ratings, matchups, outcomes, weights, alpha=1.0):
    matchup_ratings = ratings[matchups]
    logits = alpha * (matchup_ratings[:, 0] - matchup_ratings[:, 1])
    probs = expit(logits)
    loss = -((np.log(probs) * outcomes + np.log(1.0 - probs) * (1.0 - outcomes)) * weights).sum()
    matchups_grads = -alpha * (outcomes - probs) * weights
    model_grad = np.zeros_like(ratings)
    np.add.at(model_grad, matchups[:, [0, 1]], matchups_grads[:, None] * np.array([1.0, -1.0], dtype=np.float64))
    return loss, model_grad


def fit_bt(matchups, outcomes, weights, n_models, alpha, tol=1e-6, options=None):
    initial_ratings = np.zeros(n_models, dtype=np.float64)
    result = minimize(
        fun=bt_loss_and_grad,
        x0=initial_ratings,
        args=(matchups, outcomes, weights, alpha),
        jac=True,
        method="L-BFGS-B",
        options=options or {"disp": False, "maxiter": 100, "gtol": tol},
    )
    return result["x"]


def scale_and_offset(ratings, models, scale=400, init_rating=1000, baseline_model="mixtral-8x7b-instruct-v0.1", baseline_rating=1114):
    scaled_ratings = (ratings * scale) + init_rating
    if baseline_model in models:
        baseline_idx = models.index(baseline_model)
        scaled_ratings += baseline_rating - scaled_ratings[..., [baseline_idx]]
    return scaled_ratings


def compute_bt(battles, base=10.0, scale=400.0, init_rating=1000, tol=1e-6, options=None):
    matchups, outcomes, models, weights = preprocess_for_bt(battles)
    ratings = fit_bt(matchups, outcomes, weights, len(models), math.log(base), tol, options)
    scaled = scale_and_offset(ratings, models, scale, init_rating=init_rating)
    return {m: float(scaled[k]) for k, m in enumerate(models)}


if __name__ == "__main__":
    battles = json.load(sys.stdin)
    json.dump(
        {
            "fastchat": compute_bt(battles),
            "converged": compute_bt(battles, options={"disp": False, "maxiter": 10000, "gtol": 1e-12, "ftol": 0.0}),
        },
        sys.stdout,
    )
