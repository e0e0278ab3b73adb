#!/usr/bin/python3
"""Reference for the checkpoint report's intervals on few questions, written independently of mt-arena (stdlib only).

stdin: JSON {db, judge, baseline, checkpoints: [model, ...] (by step), level}
stdout: JSON {rows: [{model, n, mean, lo, hi}], diffs: [{model, against, n, mean, lo, hi}]}

From the database's stored games (sqlite3): a match (question, turn, checkpoint vs baseline) whose two orders both
name a model is that model's win, two games that disagree or say tie are a tie (1/2), an error in either order leaves
the match out; a question's score is the mean of its turns. The exact (Clopper-Pearson) interval of a mean of scores
in [0, 1] over n questions: Beta(a/2; x, n - x + 1) and Beta(1 - a/2; x + 1, n - x) with x the scores' sum (0 and 1
at the ends). A paired difference d in [-1, 1] is rescaled to (d + 1) / 2 first. The Beta distribution function is
summed as its power series (mt-arena uses a continued fraction), the quantile found by bisection.
"""
import json
import math
import sqlite3
import sys


def beta_cdf(x, a, b):
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    if x > 0.5:
        return 1.0 - beta_cdf(1.0 - x, b, a)
    # I_x(a, b) = x^a / B(a, b) * sum_n (1 - b)_n / n! * x^n / (a + n)
    total, c, n = 1.0 / a, 1.0, 0
    while True:
        n += 1
        c *= (n - b) / n * x
        term = c / (a + n)
        total += term
        if abs(term) < 1e-17 * abs(total) or n > 100000:
            break
    log_beta = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    return math.exp(a * math.log(x) - log_beta) * total


def beta_quantile(p, a, b):
    lo, hi = 0.0, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if beta_cdf(mid, a, b) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def exact(x, n, level):
    alpha = 1 - level
    lo = 0.0 if x <= 0 else beta_quantile(alpha / 2, x, n - x + 1)
    hi = 1.0 if x >= n else beta_quantile(1 - alpha / 2, x + 1, n - x)
    return lo, hi


def main():
    o = json.load(sys.stdin)
    db = sqlite3.connect(o["db"])
    games = {}
    for q, turn, m1, m2, order, verdict in db.execute(
        'select question_id, turn, model_1, model_2, "order", verdict from games where judge = ?', (o["judge"],)
    ):
        games.setdefault((q, turn, m1, m2), {})[order] = verdict
    level = o["level"]
    scores = {}
    for model in o["checkpoints"]:
        per_q = {}
        for (q, turn, m1, m2), by_order in games.items():
            if {m1, m2} != {model, o["baseline"]} or len(by_order) < 2 or "error" in by_order.values():
                continue
            v1, v2 = by_order["AB"], by_order["BA"]
            winner = v1 if v1 == v2 else "tie"
            side = {"model_1": m1, "model_2": m2}.get(winner)
            s = 0.5 if side is None else (1.0 if side == model else 0.0)
            per_q.setdefault(q, []).append(s)
        scores[model] = {q: sum(v) / len(v) for q, v in per_q.items()}
    rows, diffs = [], []
    for k, model in enumerate(o["checkpoints"]):
        v = list(scores[model].values())
        n = len(v)
        lo, hi = exact(sum(v), n, level)
        rows.append({"model": model, "n": n, "mean": sum(v) / n, "lo": lo, "hi": hi})
        if k:
            prev = o["checkpoints"][k - 1]
            d = [scores[model][q] - scores[prev][q] for q in scores[model] if q in scores[prev]]
            lo, hi = exact(sum((x + 1) / 2 for x in d), len(d), level)
            mean = sum(d) / len(d)
            diffs.append({"model": model, "against": prev, "n": len(d), "mean": mean, "lo": 2 * lo - 1, "hi": 2 * hi - 1})
    json.dump({"rows": rows, "diffs": diffs}, sys.stdout)


main()
