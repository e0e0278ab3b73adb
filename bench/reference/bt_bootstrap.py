#!/usr/bin/python3
"""Reference for bench/bt-bootstrap.ts: FastChat's compute_bootstrap_bt (fastchat/serve/monitor/elo_analysis.py),
the same method with numpy in place of pandas for the preprocessing: unique (model_a, model_b, outcome) rows with
counts; every round draws the counts multinomially (rng seed 0) and refits Bradley-Terry with scipy's L-BFGS-B
(alpha = ln 10, tol 1e-6, from zeros), in a multiprocessing pool of os.cpu_count() workers as FastChat does.

usage: bt_bootstrap.py BATTLES.csv ROUNDS [WORKERS]   (CSV: a,b,winner with winner 2 = a, 1 = tie, 0 = b)
prints one JSON object: timings (s) and, per model index, the full fit and the 2.5/50/97.5 percentiles (scale 400, init 1000).
"""
import json
import math
import multiprocessing as mp
import os
import resource
import sys
import time
from functools import partial

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit


def preprocess_for_bt(a, b, winner):
    schedule = np.column_stack([a, b, winner])
    matchups_outcomes, weights = np.unique(schedule, return_counts=True, axis=0)
    matchups = matchups_outcomes[:, [0, 1]]
    outcomes = matchups_outcomes[:, 2].astype(np.float64) / 2.0
    return matchups, outcomes, weights.astype(np.float64)


def bt_loss_and_grad(ratings, matchups, outcomes, weights, alpha=1.0):
    matchup_ratings = ratings[matchups]
    logits = alpha * (matchup_ratings[:, 0] - matchup_ratings[:, 1])
    probs = expit(logits)
    loss = -((np.log(probs) * outcomes + np.log(1.0 - probs) * (1.0 - outcomes)) * weights).sum()
    matchups_grads = -alpha * (outcomes - probs) * weights
    model_grad = np.zeros_like(ratings)
    np.add.at(model_grad, matchups[:, [0, 1]], matchups_grads[:, None] * np.array([1.0, -1.0], dtype=np.float64))
    return loss, model_grad


def fit_bt(matchups, outcomes, weights, n_models, alpha, tol=1e-6):
    initial_ratings = np.zeros(n_models, dtype=np.float64)
    result = minimize(fun=bt_loss_and_grad, x0=initial_ratings, args=(matchups, outcomes, weights, alpha), jac=True, method="L-BFGS-B", options={"disp": False, "maxiter": 100, "gtol": tol})
    return result["x"]


def main():
    path, rounds = sys.argv[1], int(sys.argv[2])
    workers = int(sys.argv[3]) if len(sys.argv) > 3 else os.cpu_count()
    t0 = time.perf_counter()
    data = np.loadtxt(path, delimiter=",", dtype=np.int64, skiprows=1)
    t_load = time.perf_counter() - t0
    a, b, winner = data[:, 0], data[:, 1], data[:, 2]
    n_models = int(max(a.max(), b.max())) + 1
    t0 = time.perf_counter()
    matchups, outcomes, weights = preprocess_for_bt(a, b, winner)
    t_pre = time.perf_counter() - t0
    t0 = time.perf_counter()
    full = fit_bt(matchups, outcomes, weights, n_models, math.log(10.0))
    t_full = time.perf_counter() - t0
    t0 = time.perf_counter()
    c0 = resource.getrusage(resource.RUSAGE_SELF)
    rng = np.random.default_rng(seed=0)
    idxs = rng.multinomial(n=len(a), pvals=weights / weights.sum(), size=(rounds))
    boot_weights = idxs.astype(np.float64) / len(a)
    bt_fn = partial(fit_bt, matchups, outcomes, n_models=n_models, alpha=math.log(10.0), tol=1e-6)
    with mp.Pool(workers) as pool:
        results = list(pool.imap_unordered(bt_fn, boot_weights))
    t_boot = time.perf_counter() - t0
    c1 = resource.getrusage(resource.RUSAGE_SELF)
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)  # the pool's workers, reaped when the pool closed
    cpu_boot = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime) + ch.ru_utime + ch.ru_stime
    ratings = np.array(results) * 400 + 1000
    full = full * 400 + 1000
    print(json.dumps({
        "battles": int(len(a)), "models": n_models, "cells": int(len(weights)), "rounds": rounds, "workers": workers,
        "seconds": {"load": t_load, "preprocess": t_pre, "fit": t_full, "bootstrap": t_boot, "bootstrapCpu": cpu_boot},
        "full": full.tolist(),
        "lo": np.percentile(ratings, 2.5, axis=0).tolist(),
        "median": np.percentile(ratings, 50, axis=0).tolist(),
        "hi": np.percentile(ratings, 97.5, axis=0).tolist(),
    }))


if __name__ == "__main__":
    main()
