#!/usr/bin/python3
"""Reference for the like-for-like comparison of GPT-4 and the Judge Llama 2 study's judge, written independently
of mt-arena from the raw files (python stdlib + numpy).

argv: <judgment .jsonl.gz> <mt_bench_human.csv> <mt_bench_gpt4_pair.csv> <rounds> <seed>
stdout: JSON with the point figures and 95% percentile intervals of a question bootstrap (numpy's RNG, so the
intervals agree with mt-arena's only within Monte-Carlo error).

Definitions (as the audit in the issue states them):
  common matches: (question, turn, model pair) where both judges have a verdict in both orders (no error);
  inconsistency: share of the common matches whose two orders disagree;
  agreement with the experts (FastChat's compute_agreement): with ties over the common matches; without ties over
  the matches both judges decided (a side, both orders agreeing), expert ties left out, so both judges meet the
  same expert votes;
  r: Pearson's r over models of the adjusted win rates (win + (tie + inconsistent) / 2) / matches, common matches.

Each judge on its own matches (the "own:" figures, the naive comparison the audit measured): inconsistency over
the matches that judge read in both orders; the ratio of the two; r over the matches both judged (a verdict or an
error from each), each judge's errors left out of its own win rates. Same question bootstrap.
"""
import csv
import gzip
import json
import sys

import numpy as np

judgment_file, human_csv, gpt4_csv, rounds, seed = sys.argv[1:6]
rounds, seed = int(rounds), int(seed)


def key(q, t, a, b):
    return (int(q), int(t)) + tuple(sorted((a, b)))


def winner_label(winner, a, b):
    """'lo' / 'hi' (the alphabetically first / second model of the pair) or 'tie'."""
    if winner in ("model_a", "model_1"):
        w = a
    elif winner in ("model_b", "model_2"):
        w = b
    else:
        return "tie"
    return "lo" if w == min(a, b) else "hi"


llama = {}
for line in gzip.open(judgment_file, "rt", encoding="utf-8"):
    if not line.strip():
        continue
    r = json.loads(line)
    g1, g2 = r["g1_winner"], r["g2_winner"]
    k = key(r["question_id"], r["turn"], r["model_1"], r["model_2"])
    if g1 == "error" or g2 == "error":
        llama[k] = "error"
    elif g1 != g2:
        llama[k] = "inconsistent"
    else:
        llama[k] = winner_label(g1, r["model_1"], r["model_2"])

gpt4 = {}
for v in csv.DictReader(open(gpt4_csv, encoding="utf-8")):
    k = key(v["question_id"], v["turn"], v["model_a"], v["model_b"])
    w = v["winner"]
    gpt4[k] = "inconsistent" if w == "tie (inconsistent)" else winner_label(w, v["model_a"], v["model_b"])

experts = {}
for v in csv.DictReader(open(human_csv, encoding="utf-8")):
    if not v["judge"].startswith("expert"):
        continue
    k = key(v["question_id"], v["turn"], v["model_a"], v["model_b"])
    experts.setdefault(k, []).append(winner_label(v["winner"], v["model_a"], v["model_b"]))

common = sorted(k for k in gpt4 if k in llama and llama[k] != "error" and gpt4[k] != "error")
questions = sorted({k[0] for k in common})
qindex = {q: i for i, q in enumerate(questions)}
models = sorted({m for k in common for m in k[2:]})
J = {"gpt-4": gpt4, "llama": llama}


def label(o):
    return "tie" if o in ("tie", "inconsistent") else o


# per question tallies: inconsistent counts, per model score sums and counts, agreement (agree, total)
nq = len(questions)
matches = np.zeros(nq)
inc = {j: np.zeros(nq) for j in J}
score = {j: np.zeros((nq, len(models))) for j in J}
games = np.zeros((nq, len(models)))
agree = {}  # (judge, turn, setup) -> (agree[nq], total[nq])
for k in common:
    qi = qindex[k[0]]
    matches[qi] += 1
    lo, hi = models.index(k[2]), models.index(k[3])
    games[qi, lo] += 1
    games[qi, hi] += 1
    decided = all(J[j][k] in ("lo", "hi") for j in J)
    for j, d in J.items():
        o = d[k]
        inc[j][qi] += o == "inconsistent"
        s_lo = 1.0 if o == "lo" else 0.0 if o == "hi" else 0.5
        score[j][qi, lo] += s_lo
        score[j][qi, hi] += 1 - s_lo
        for e in experts.get(k, []):
            for setup in ("with-tie", "without-tie"):
                if setup == "without-tie" and (not decided or e == "tie"):
                    continue
                a, t = agree.setdefault((j, k[1], setup), (np.zeros(nq), np.zeros(nq)))
                t[qi] += 1
                a[qi] += label(o) == e


# each judge on its own matches: per question, matches read (no error) and inconsistent ones; win rates over the
# matches both judged, each judge's errors left out
own_q = sorted({k[0] for j in J.values() for k in j})
own_read = {j: np.zeros(len(own_q)) for j in J}
own_inc = {j: np.zeros(len(own_q)) for j in J}
own_score = {j: np.zeros((len(own_q), len(models))) for j in J}
own_games = {j: np.zeros((len(own_q), len(models))) for j in J}
both_judged = [k for k in gpt4 if k in llama]
for j, d in J.items():
    for k, o in d.items():
        if o == "error":
            continue
        qi = own_q.index(k[0])
        own_read[j][qi] += 1
        own_inc[j][qi] += o == "inconsistent"
        if k not in gpt4 or k not in llama:
            continue
        lo, hi = models.index(k[2]), models.index(k[3])
        s_lo = 1.0 if o == "lo" else 0.0 if o == "hi" else 0.5
        own_score[j][qi, lo] += s_lo
        own_score[j][qi, hi] += 1 - s_lo
        own_games[j][qi, lo] += 1
        own_games[j][qi, hi] += 1


def own_figures(w):
    out = {f"own:inc:{j}": (w @ own_inc[j]) / (w @ own_read[j]) for j in J}
    out["own:ratio"] = out["own:inc:llama"] / out["own:inc:gpt-4"]
    x = (w @ own_score["gpt-4"]) / (w @ own_games["gpt-4"])
    y = (w @ own_score["llama"]) / (w @ own_games["llama"])
    out["own:r"] = float(np.corrcoef(x, y)[0, 1])
    return out


def figures(w):
    n = w @ matches
    out = {}
    for j in J:
        out[f"inc:{j}"] = (w @ inc[j]) / n
    out["ratio"] = out["inc:llama"] / out["inc:gpt-4"]
    g = w @ games
    x, y = (w @ score["gpt-4"]) / g, (w @ score["llama"]) / g
    out["r"] = float(np.corrcoef(x, y)[0, 1])
    for (j, turn, setup), (a, t) in agree.items():
        out[f"agree:{j}:{turn}:{setup}"] = (w @ a) / (w @ t)
    return out


assert own_q == questions, "the own-matches figures assume the same questions as the common matches"
point = {**figures(np.ones(nq)), **own_figures(np.ones(nq))}
rng = np.random.default_rng(seed)
draws = []
for _ in range(rounds):
    w = np.bincount(rng.integers(0, nq, nq), minlength=nq).astype(float)
    draws.append({**figures(w), **own_figures(w)})
result = {"matches": len(common), "questions": nq, "models": len(models), "figures": {}}
for name, value in point.items():
    samples = np.array([d[name] for d in draws])
    samples = samples[~np.isnan(samples)]
    lo, hi = np.percentile(samples, [2.5, 97.5])
    result["figures"][name] = {"value": float(value), "lo": float(lo), "hi": float(hi)}
for (j, turn, setup), (a, t) in agree.items():
    result["figures"][f"agree:{j}:{turn}:{setup}"].update({"agree": int(a.sum()), "total": int(t.sum())})
for j in J:
    result["figures"][f"inc:{j}"]["inconsistent"] = int(inc[j].sum())
    result["figures"][f"own:inc:{j}"].update({"inconsistent": int(own_inc[j].sum()), "matches": int(own_read[j].sum())})
result["figures"]["own:r"]["matches"] = len(both_judged)
print(json.dumps(result))
