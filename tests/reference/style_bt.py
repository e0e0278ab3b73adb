#!/usr/bin/python3
"""Reference for `arena ratings --style`: FastChat's style control (fastchat/serve/monitor/rating_systems.py:
preprocess_for_style + fit_contextual_bt), written independently here.

Features per battle and style element: d = (a - b) / (a + b + 1), z-scored (numpy's mean and std, ddof 0)
over all battles taken in both orientations (d and -d). FastChat z-scores d as observed, which is the same
when sides are random as in Chatbot Arena; MT-Bench's model 1 of a pair is fixed, so both orientations. Elements: length = characters of the answer's turns 1..t (t = the judged turn);
headers, lists, bold = Arena-Hard's markdown patterns (count_markdown_elements) over the same turns with
fenced code blocks (```...```) removed first. Objective: -sum [y log p + (1-y) log(1-p)] + (reg/2)|theta|^2,
p = expit(ln10 (r_a - r_b) + x . beta), ties y = 0.5, minimised with L-BFGS-B to full precision.
A feature that never varies is left out. With "min_support" given ({"answers", "questions", "won", "lost"}), a feature
that varies but rests on fewer distinct answers (model, question) carrying it, fewer questions whose battles differ
in it, or fewer decisive battles won (lost) by the answer with more of it, is left out as not estimable.
se: per coefficient, the question-clustered sandwich sqrt(diag(H^-1 B H^-1) * Q / (Q - 1)) with the full design
matrix Z (ln10 (e_a - e_b), features), H = Z' diag(p (1 - p)) Z + reg I, B = sum over questions of the summed
scores Z' (y - p) outer themselves.

stdin: JSON {"answers": {model: {question_id: [turn texts]}}, "battles": [[qid, turn, model_a, model_b, y]],
             "elements": ["length", "headers", ...], "reg": 0.5}
stdout: JSON {"ratings": {model: 400 r + 1000}, "coefficients": {element: beta}, "se": {element: se},
              "sandwich": {"t", "ratings": {model: [lo, hi]}, "raw": {model: [lo, hi]}, "coefficients": {element: [lo, hi]}},
              "constant": [...], "not_estimable": [...]}
"""
import json
import math
import re
import sys

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, stdtrit  # stdtrit(df, q): what scipy.stats.t.ppf(q, df) computes

CODE = re.compile(r"```[^`]*```")


def counts(text):
    prose = CODE.sub("", text)
    return {
        "length": len(text),
        "headers": sum(len(re.findall(r"^#{%d}\s" % h, prose, re.MULTILINE)) for h in range(1, 7)),
        "lists": len(re.findall(r"^\s*\d+\.\s", prose, re.MULTILINE)) + len(re.findall(r"^\s*[-*+]\s", prose, re.MULTILINE)),
        "bold": len(re.findall(r"\*\*[^*\n]+\*\*", prose)) + len(re.findall(r"__[^_\n]+__", prose)),
    }


def main():
    data = json.load(sys.stdin)
    answers, battles, elements, reg = data["answers"], data["battles"], data["elements"], data["reg"]
    level = data.get("level", 0.95)

    def style(model, qid, turn):
        turns = answers[model][str(qid)][:turn]
        per = [counts(t) for t in turns]
        return {k: sum(c[k] for c in per) for k in per[0]}

    models = sorted({b[2] for b in battles} | {b[3] for b in battles})
    idx = {m: k for k, m in enumerate(models)}
    n = len(models)
    ia = np.array([idx[b[2]] for b in battles])
    ib = np.array([idx[b[3]] for b in battles])
    y = np.array([float(b[4]) for b in battles])
    cols, kept, constant, not_estimable = [], [], [], []
    ms = data.get("min_support")
    sa = [style(b[2], b[0], b[1]) for b in battles]
    sb = [style(b[3], b[0], b[1]) for b in battles]
    for e in elements:
        a = np.array([s[e] for s in sa], dtype=float)
        b = np.array([s[e] for s in sb], dtype=float)
        d = (a - b) / (a + b + 1.0)
        both = np.concatenate([d, -d])  # every battle in both orientations: mean 0
        if both.std() <= 1e-12:
            constant.append(e)
            continue
        if ms:
            carriers = {(bt[2], bt[0]) for bt, v in zip(battles, a) if v > 0} | {(bt[3], bt[0]) for bt, v in zip(battles, b) if v > 0}
            qs = {bt[0] for bt, x in zip(battles, a - b) if x != 0}
            dec = (a != b) & (y != 0.5)
            more_won = ((a > b) & (y == 1)) | ((a < b) & (y == 0))
            won = int(np.sum(dec & more_won))
            lost = int(np.sum(dec & ~more_won))
            if len(carriers) < ms["answers"] or len(qs) < ms["questions"] or won < ms["won"] or lost < ms["lost"]:
                not_estimable.append(e)
                continue
        kept.append(e)
        cols.append((d - both.mean()) / both.std())
    X = np.array(cols).T if cols else np.zeros((len(battles), 0))
    A = math.log(10.0)

    def loss(theta):
        r, beta = theta[:n], theta[n:]
        p = expit(A * (r[ia] - r[ib]) + X @ beta)
        e = y - p
        g = reg * theta.copy()
        np.add.at(g, ia, -A * e)
        np.add.at(g, ib, A * e)
        g[n:] -= X.T @ e
        return -np.sum(y * np.log(p) + (1 - y) * np.log(1 - p)) + reg / 2 * theta @ theta, g

    res = minimize(loss, np.zeros(n + len(kept)), jac=True, method="L-BFGS-B", options={"maxiter": 100000, "gtol": 1e-11, "ftol": 0.0})
    theta = res.x
    Z = np.zeros((len(battles), n + len(kept)))
    Z[np.arange(len(battles)), ia] += A
    Z[np.arange(len(battles)), ib] -= A
    Z[:, n:] = X
    p = expit(Z @ theta)
    H = Z.T @ (Z * (p * (1 - p))[:, None]) + reg * np.eye(Z.shape[1])
    qids = sorted({bt[0] for bt in battles})
    qi = {qq: k for k, qq in enumerate(qids)}
    S = np.zeros((len(qids), Z.shape[1]))
    np.add.at(S, np.array([qi[bt[0]] for bt in battles]), Z * (y - p)[:, None])
    Hi = np.linalg.inv(H)
    V = Hi @ (S.T @ S) @ Hi * len(qids) / (len(qids) - 1)
    # sandwich intervals (--intervals sandwich): each rating centred on the mean of all models, its se the
    # contrast's c' V c; plain Bradley-Terry beside it by its own unpenalised fit (L-BFGS-B, then centred) with the
    # same sandwich on the sum-zero contrasts (H's null direction, the common shift, never enters them)
    Q = len(qids)
    tq = float(stdtrit(Q - 1, 1 - (1 - level) / 2))
    C = np.eye(n) - 1.0 / n
    rating_se = 400 * np.sqrt(np.einsum("ij,jk,ik->i", C, V[:n, :n], C))
    Zr = Z[:, :n]
    def raw_loss(r):
        pr = expit(Zr @ r)
        return -np.sum(y * np.log(pr) + (1 - y) * np.log(1 - pr)), -Zr.T @ (y - pr)
    rr = minimize(raw_loss, np.zeros(n), jac=True, method="L-BFGS-B", options={"maxiter": 100000, "gtol": 1e-11, "ftol": 0.0}).x
    rr -= rr.mean()
    pr = expit(Zr @ rr)
    Hr = Zr.T @ (Zr * (pr * (1 - pr))[:, None])
    Sr = np.zeros((Q, n))
    np.add.at(Sr, np.array([qi[bt[0]] for bt in battles]), Zr * (y - pr)[:, None])
    # the common shift is H's null direction: cut it by a tolerance no machine's rounding reaches (the default 1e-15
    # kept it on one machine, and its eigenvector, not exactly the ones vector, leaked into the contrasts)
    Hp = np.linalg.pinv(Hr, rcond=1e-10, hermitian=True)
    Vr = Hp @ (Sr.T @ Sr) @ Hp * Q / (Q - 1)
    raw_se = 400 * np.sqrt(np.einsum("ij,jk,ik->i", C, Vr, C))
    centre = theta[:n].mean()
    sandwich = {
        "t": tq,
        "ratings": {m: [float(400 * (theta[k] - centre) + 1000 + s * tq * rating_se[k]) for s in (-1, 1)] for m, k in idx.items()},
        "raw": {m: [float(400 * rr[k] + 1000 + s * tq * raw_se[k]) for s in (-1, 1)] for m, k in idx.items()},
        "coefficients": {e: [float(theta[n + k] + s * tq * math.sqrt(V[n + k, n + k])) for s in (-1, 1)] for k, e in enumerate(kept)},
    }
    json.dump({"ratings": {m: float(400 * theta[k] + 1000) for m, k in idx.items()}, "coefficients": {e: float(theta[n + k]) for k, e in enumerate(kept)}, "se": {e: float(math.sqrt(V[n + k, n + k])) for k, e in enumerate(kept)}, "sandwich": sandwich, "constant": constant, "not_estimable": not_estimable}, sys.stdout)


if __name__ == "__main__":
    main()
