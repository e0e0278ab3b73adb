#!/usr/bin/python3
"""Reference for `arena power`, written independently of mt-arena from the raw files (stdlib + numpy + scipy).

argv: <judgment .jsonl.gz> <mt_bench_gpt4_pair.csv> <gap or "observed"> <alpha> <power>
stdout: JSON {judge: [rows]} for "gpt-4" (the gpt4_pair split) and "llama" (the study's file: a match with an error
in either order left out, two orders that disagree a tie), each row one model against the next in the adjusted
win-rate standings: questions, matches, winRate, sdPerQuestion (ddof 1, over questions of the model's mean score
on the question), se, separated, questionsNeeded = ceil(((z(1-alpha/2) + z(power)) sd / gap)^2), matchesNeeded.
"""
import csv
import gzip
import json
import math
import sys

import numpy as np
from scipy.stats import norm

judgment_file, gpt4_csv, gap_arg, alpha, power = sys.argv[1:6]
alpha, power = float(alpha), float(power)


def llama_matches():
    out = []
    for line in gzip.open(judgment_file, "rt", encoding="utf-8"):
        if not line.strip():
            continue
        r = json.loads(line)
        g1, g2 = r["g1_winner"], r["g2_winner"]
        if "error" in (g1, g2):
            continue
        w = g1 if g1 == g2 else "tie"
        s = {"model_1": 1.0, "model_2": 0.0, "tie": 0.5}[w]
        out.append((r["question_id"], r["model_1"], r["model_2"], s))
    return out


def gpt4_matches():
    out = []
    for v in csv.DictReader(open(gpt4_csv, encoding="utf-8")):
        s = {"model_a": 1.0, "model_b": 0.0}.get(v["winner"], 0.5)
        out.append((int(v["question_id"]), v["model_a"], v["model_b"], s))
    return out


def rows(matches):
    score, n = {}, {}
    for q, a, b, s in matches:
        for m, x in ((a, s), (b, 1 - s)):
            score[m] = score.get(m, 0) + x
            n[m] = n.get(m, 0) + 1
    order = sorted(score, key=lambda m: (-score[m] / n[m], m))
    za, zb = norm.ppf(1 - alpha / 2), norm.ppf(power)
    out = []
    for m1, m2 in zip(order, order[1:]):
        per_q = {}
        for q, a, b, s in matches:
            if {a, b} == {m1, m2}:
                per_q.setdefault(q, []).append(s if a == m1 else 1 - s)
        if not per_q:
            continue
        means = np.array([np.mean(v) for v in per_q.values()])
        allv = np.concatenate([np.array(v) for v in per_q.values()])
        win = float(allv.mean())
        sd = float(means.std(ddof=1))
        se = sd / math.sqrt(len(means))
        gap = abs(win - 0.5) if gap_arg == "observed" else float(gap_arg)
        need = math.ceil(((za + zb) * sd / gap) ** 2) if gap > 0 and sd > 0 else None
        out.append({
            "model1": m1, "model2": m2, "questions": len(means), "matches": int(allv.size), "winRate": win,
            "sdPerQuestion": sd, "se": se, "separated": bool(abs(win - 0.5) > za * se), "gap": gap,
            "questionsNeeded": need,
            "matchesNeeded": None if need is None else math.ceil(need * allv.size / len(means)),
        })
    return out


print(json.dumps({"gpt-4": rows(gpt4_matches()), "llama": rows(llama_matches())}))
