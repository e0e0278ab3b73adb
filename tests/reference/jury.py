#!/usr/bin/python3
"""Reference figures for a jury of MT-Bench's two recorded judges (GPT-4's gpt4_pair verdicts and the Judge Llama 2
study's Llama-2-70B judgments), written independently of mt-arena from the raw files (python stdlib only).

argv: <judgment .jsonl.gz> <mt_bench_human.csv> <mt_bench_gpt4_pair.csv> <rule: majority|mean>
stdout: JSON
  matches:   matches both judges have (question, turn, sorted pair)
  standings: per model win / loss / tie of the pooled verdicts
  pair:      the two judges on the matches both gave a verdict on: agreement with and without ties, Cohen's kappa
  effectiveVotes: 2 / (1 + kappa) (Kish's design effect with the kappa as the correlation, clamped to [0, 1])
  people:    {human, author}: compute_agreement (FastChat) per turn, with and without ties, of the jury and of each
             judge against the experts' (judge expert_*) and the authors' (author_*) votes
Member verdicts: GPT-4's `tie (inconsistent)` is a tie; a Llama match with an error in either game has no verdict
(the member abstains); two Llama games that disagree are a tie. Pooling over the members with a verdict:
majority: the label more than half of them give, else a tie; mean: mean score (1, 1/2, 0) above 1/2 a win, below a
loss, else a tie.
"""
import csv
import gzip
import json
import sys

judgment_file, human_csv, gpt4_csv, rule = sys.argv[1:5]


def key(q, t, a, b):
    return (int(q), int(t), min(a, b), max(a, b))


def on_sorted(a, b, w):  # w: 'a' (first named wins) / 'b' / 'tie'  ->  score of the sorted pair's first model
    if w == "tie":
        return 0.5
    first_wins = w == "a"
    return 1.0 if first_wins == (a < b) else 0.0


gpt4 = {}
for v in csv.DictReader(open(gpt4_csv, encoding="utf-8")):
    w = {"model_a": "a", "model_b": "b"}.get(v["winner"], "tie")
    gpt4[key(v["question_id"], v["turn"], v["model_a"], v["model_b"])] = on_sorted(v["model_a"], v["model_b"], w)

llama = {}
for line in gzip.open(judgment_file, "rt", encoding="utf-8"):
    if not line.strip():
        continue
    r = json.loads(line)
    g1, g2 = r["g1_winner"], r["g2_winner"]
    k = key(r["question_id"], r["turn"], r["model_1"], r["model_2"])
    if g1 == "error" or g2 == "error":
        llama[k] = None
        continue
    w = g1 if g1 == g2 else "tie"
    llama[k] = on_sorted(r["model_1"], r["model_2"], {"model_1": "a", "model_2": "b", "tie": "tie"}[w])


def pool(scores):
    scores = [s for s in scores if s is not None]
    if not scores:
        return None
    if rule == "mean":
        m = sum(scores) / len(scores)
        return 1.0 if m > 0.5 else 0.0 if m < 0.5 else 0.5
    for v in (1.0, 0.0, 0.5):
        if 2 * sum(1 for s in scores if s == v) > len(scores):
            return v
    return 0.5


jury = {k: pool([gpt4[k], llama[k]]) for k in gpt4 if k in llama}

standings = {}
for (q, t, lo, hi), s in jury.items():
    if s is None:
        continue
    for m, x in ((lo, s), (hi, 1 - s)):
        row = standings.setdefault(m, {"model": m, "win": 0, "loss": 0, "tie": 0})
        row["win" if x == 1 else "loss" if x == 0 else "tie"] += 1

# ---- the two judges side by side
LABEL = {1.0: "a", 0.0: "b", 0.5: "tie"}
both = [(LABEL[gpt4[k]], LABEL[llama[k]]) for k in gpt4 if llama.get(k) is not None]


def kappa(pairs):
    n = len(pairs)
    cats = ["a", "b", "tie"]
    po = sum(1 for x, y in pairs if x == y) / n
    pe = sum((sum(1 for x, _ in pairs if x == c) / n) * (sum(1 for _, y in pairs if y == c) / n) for c in cats)
    return (po - pe) / (1 - pe)


no_tie = [(x, y) for x, y in both if x != "tie" and y != "tie"]
k = kappa(both)
pair = {
    "matches": len(both),
    "agree": sum(1 for x, y in both if x == y),
    "withoutTie": {"total": len(no_tie), "agree": sum(1 for x, y in no_tie if x == y)},
    "kappa": k,
    "kappaWithoutTie": kappa(no_tie),
}
effective = 2 / (1 + min(1.0, max(0.0, k)))

# ---- compute_agreement against people, per turn
people = {"human": {}, "author": {}}
for v in csv.DictReader(open(human_csv, encoding="utf-8")):
    who = "human" if v["judge"].startswith("expert") else "author" if v["judge"].startswith("author") else None
    if who is None:
        continue
    w = {"model_a": "a", "model_b": "b"}.get(v["winner"], "tie")
    k2 = key(v["question_id"], v["turn"], v["model_a"], v["model_b"])
    people[who].setdefault(k2, []).append(LABEL[on_sorted(v["model_a"], v["model_b"], w)])

out_people = {}
for who, votes in people.items():
    rows = []
    for name, verdicts in (("jury", jury), ("gpt-4", gpt4), ("llama", llama)):
        for t in (1, 2):
            for setup in ("with-tie", "without-tie"):
                agree = total = 0
                for k2, hs in votes.items():
                    if k2[1] != t or verdicts.get(k2) is None:
                        continue
                    j = LABEL[verdicts[k2]]
                    if setup == "without-tie" and j == "tie":
                        continue
                    for h in hs:
                        if setup == "without-tie" and h == "tie":
                            continue
                        total += 1
                        agree += h == j
                rows.append({"judge": name, "turn": t, "setup": setup, "total": total, "agree": agree})
    out_people[who] = {"votes": sum(len(hs) for hs in votes.values()), "rows": rows}

json.dump(
    {
        "matches": len(jury),
        "errors": sum(1 for s in jury.values() if s is None),
        "standings": sorted(standings.values(), key=lambda r: r["model"]),
        "pair": pair,
        "effectiveVotes": effective,
        "people": out_people,
    },
    sys.stdout,
)
