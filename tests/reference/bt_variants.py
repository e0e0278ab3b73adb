#!/usr/bin/python3
"""Reference for the Bradley-Terry variants (`arena ratings --ties rao-kupper`, `--position`), written independently
of mt-arena from the raw files, fitted with scipy's L-BFGS-B on the log-likelihoods written out below.

argv: <judgment .jsonl.gz> <mt_bench_gpt4_pair.csv>
stdout: JSON
  raoKupper: GPT-4's gpt4_pair outcomes (model_a / model_b wins, any tie label a tie):
             P(i beats j) = pi_i / (pi_i + theta pi_j), P(tie) = (theta^2 - 1) pi_i pi_j / ((pi_i + theta pi_j)(pi_j + theta pi_i))
  position:  the study's games, each on its own (g1 shows model_1 first, g2 model_2; error games dropped):
             P(first wins) = sigmoid(b_first - b_second + h), ties half
  ratings on the Elo scale (400 / ln 10 per unit, mean 1000), theta, h in points, log-likelihoods
  position.se: h's standard error in points, clustered by question_id: with X the design (a column per model but
  the first: +1 first-shown, -1 second; a column of ones for h), p the fitted probabilities and y the scores,
  H = X' diag(p (1 - p)) X, s_q = sum over question q's games of x (y - p),
  V = H^-1 (sum_q s_q s_q') H^-1 * Q / (Q - 1); position.seIndependent: sqrt of H^-1's h entry
"""
import csv
import gzip
import json
import math
import sys

import numpy as np
from scipy.optimize import minimize

judgment_file, gpt4_csv = sys.argv[1:3]
K = 400 / math.log(10)


def elo(beta):
    b = np.asarray(beta)
    return list(K * (b - b.mean()) + 1000)


# ---- Rao-Kupper on gpt4_pair
rows = list(csv.DictReader(open(gpt4_csv, encoding="utf-8")))
models = sorted({v["model_a"] for v in rows} | {v["model_b"] for v in rows})
ix = {m: k for k, m in enumerate(models)}
n = len(models)
obs = []  # (i, j, outcome) outcome: 1 i won, 0 j won, 0.5 tie
for v in rows:
    i, j = ix[v["model_a"]], ix[v["model_b"]]
    obs.append((i, j, {"model_a": 1.0, "model_b": 0.0}.get(v["winner"], 0.5)))
I = np.array([o[0] for o in obs])
J = np.array([o[1] for o in obs])
S = np.array([o[2] for o in obs])


def rk_negll(x):
    beta = np.concatenate([[0.0], x[: n - 1]])
    theta = 1 + math.exp(x[n - 1])
    pi, pj = np.exp(beta[I]), np.exp(beta[J])
    p_i = pi / (pi + theta * pj)
    p_j = pj / (pj + theta * pi)
    p_t = (theta**2 - 1) * pi * pj / ((pi + theta * pj) * (pj + theta * pi))
    ll = np.where(S == 1, np.log(p_i), np.where(S == 0, np.log(p_j), np.log(p_t)))
    return -ll.sum()


r = minimize(rk_negll, np.concatenate([np.zeros(n - 1), [math.log(0.5)]]), method="L-BFGS-B",
             options={"ftol": 1e-15, "gtol": 1e-10, "maxiter": 10000})
theta = 1 + math.exp(r.x[n - 1])
rao_kupper = {"models": models, "ratings": elo(np.concatenate([[0.0], r.x[: n - 1]])), "theta": theta,
              "tieAtEqual": (theta - 1) / (theta + 1), "logLik": -r.fun}

# ---- position term on the study's games
games = []
for line in gzip.open(judgment_file, "rt", encoding="utf-8"):
    if not line.strip():
        continue
    v = json.loads(line)
    for g, first, second in ((1, v["model_1"], v["model_2"]), (2, v["model_2"], v["model_1"])):
        w = v[f"g{g}_winner"]
        if w == "error":
            continue
        s = 0.5 if w == "tie" else 1.0 if (w == "model_1") == (first == v["model_1"]) else 0.0
        games.append((first, second, s, v["question_id"]))
pmodels = sorted({g[0] for g in games} | {g[1] for g in games})
pix = {m: k for k, m in enumerate(pmodels)}
pn = len(pmodels)
F = np.array([pix[g[0]] for g in games])
Sd = np.array([pix[g[1]] for g in games])
Sc = np.array([g[2] for g in games])


def pos_negll(x):
    beta = np.concatenate([[0.0], x[: pn - 1]])
    z = beta[F] - beta[Sd] + x[pn - 1]
    return -(Sc * -np.logaddexp(0, -z) + (1 - Sc) * -np.logaddexp(0, z)).sum()


r2 = minimize(pos_negll, np.zeros(pn), method="L-BFGS-B", options={"ftol": 1e-15, "gtol": 1e-10, "maxiter": 10000})
h = r2.x[pn - 1]
position = {"models": pmodels, "ratings": elo(np.concatenate([[0.0], r2.x[: pn - 1]])), "position": h * K,
            "firstAtEqual": 1 / (1 + math.exp(-h)), "logLik": -r2.fun}

# the clustered standard error of h, with numpy's matrices
X = np.zeros((len(games), pn))
X[np.arange(len(games)), F] += 1.0
X[np.arange(len(games)), Sd] -= 1.0
X = X[:, 1:]  # the first model's strength is pinned
X = np.hstack([X, np.ones((len(games), 1))])
p = 1 / (1 + np.exp(-(X @ r2.x)))
Hm = X.T @ (X * (p * (1 - p))[:, None])
Hinv = np.linalg.inv(Hm)
Qid = np.array([g[3] for g in games])
meat = np.zeros_like(Hm)
for q in np.unique(Qid):
    sq = (X[Qid == q] * (Sc[Qid == q] - p[Qid == q])[:, None]).sum(axis=0)
    meat += np.outer(sq, sq)
nq = len(np.unique(Qid))
V = Hinv @ meat @ Hinv * nq / (nq - 1)
position["se"] = math.sqrt(V[-1, -1]) * K
position["seIndependent"] = math.sqrt(Hinv[-1, -1]) * K
position["questions"] = nq
print(json.dumps({"raoKupper": rao_kupper, "position": position}))
