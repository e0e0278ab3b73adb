#!/usr/bin/python3
"""Reference for the annotators' random-voter test (src/core/stats/voter-outliers.ts), written independently of
src/core with scipy: Chatbot Arena's sequential Fisher test (arXiv:2403.04132, "Detecting Anomalous Users") over
agreement with the majority.

stdin: JSON {"votes": [vote], "others": [vote], "alpha": float, "checkpoints": int}
  vote = {"voter", "q", "t", "m1", "m2", "w"} with w in model_1 | model_2 | tie | inconsistent
stdout: JSON [{"voter", "compared", "agree", "expected", "p", "flaggedAt"}] in the order voters first vote

- a vote's label on the sorted model pair: "lo" / "hi" / "tie" (inconsistent is a tie)
- the majority of the other voters' votes on the same (turn, question, pair): the label with strictly the most
  votes; none when tied or empty (then the vote is not compared)
- p0 for a voter: (agreeing + 1) / (compared + 2) over every compared vote of every other voter (both lists)
- a vote's p-value: agreeing (1 - p0) + p0 / 2, disagreeing (1 - p0) / 2
- M_j = -2 sum ln p_i over the voter's first j compared votes; tail = chi2.sf(M_j, 2 j); flagged at the first
  j <= checkpoints with tail <= alpha / 5; p = the smallest tail
"""
import json
import math
import sys
from collections import Counter, defaultdict

from scipy.special import chdtrc  # what scipy.stats.chi2.sf(x, df) computes: chdtrc(df, x)

d = json.load(sys.stdin)
votes, others = d["votes"], d["others"]
alpha, checkpoints = d["alpha"], d["checkpoints"]


def lab(v):
    if v["w"] in ("tie", "inconsistent"):
        return "tie"
    winner = v["m1"] if v["w"] == "model_1" else v["m2"]
    return "lo" if winner == min(v["m1"], v["m2"]) else "hi"


def key(v):
    return (v["t"], v["q"], min(v["m1"], v["m2"]), max(v["m1"], v["m2"]))


everything = votes + others
items = defaultdict(list)
for v in everything:
    items[key(v)].append(v)


def agrees(v):
    c = Counter(lab(w) for w in items[key(v)] if w["voter"] != v["voter"])
    top = c.most_common()
    if not top or (len(top) > 1 and top[0][1] == top[1][1]):
        return None
    return lab(v) == top[0][0]


outcomes = [(v["voter"], agrees(v)) for v in everything]
out = []
seen = []
for v in votes:
    if v["voter"] not in seen:
        seen.append(v["voter"])
for voter in seen:
    mine = [a for a in (agrees(v) for v in votes if v["voter"] == voter) if a is not None]
    rest = [a for who, a in outcomes if who != voter and a is not None]
    p0 = (sum(rest) + 1) / (len(rest) + 2)
    m, best, flagged = 0.0, None, None
    for j, a in enumerate(mine[:checkpoints], start=1):
        m += -2 * math.log((1 - p0) + p0 / 2 if a else (1 - p0) / 2)
        tail = float(chdtrc(2 * j, m))
        best = tail if best is None else min(best, tail)
        if flagged is None and tail <= alpha / 5:
            flagged = j
    out.append({"voter": voter, "compared": len(mine), "agree": sum(mine), "expected": p0, "p": best, "flaggedAt": flagged})
json.dump(out, sys.stdout)
