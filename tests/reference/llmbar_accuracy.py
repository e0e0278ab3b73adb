"""Independent reference for `arena accuracy` on LLMBar (tests/importers/pairs.test.ts).

Reads <dir>/<set>/dataset.json and <set>/evaluators/<LLM>/<strategy>/result.json straight from the files
(never from our database) and prints one JSON row per set and judge: LLMBar's counts (its evaluate.py rule),
Cohen's kappa by hand with an unparsed verdict as its own category, the kappa LLMBar's code prints
(it maps a "2" verdict to 0 but keeps the labels 1/2), and numpy percentile-bootstrap intervals over items.
Then one row per family of sets (the sets under a top-level folder, e.g. Adversarial/*) and judge, marked
"family": the mean of its sets' accuracies (LLMBar's paper reports a family so), the pooled items' accuracy,
and a stratified numpy bootstrap (each set's items drawn on their own, the set accuracies averaged).
Usage: python3 llmbar_accuracy.py DIR
"""
import glob
import json
import os
import sys

import numpy as np


def kappa(x, y):
    """Cohen's kappa of two label lists (categories: whatever values occur), by the textbook formula."""
    n = len(x)
    cats = sorted(set(x) | set(y), key=str)
    po = sum(1 for a, b in zip(x, y) if a == b) / n
    pe = sum((x.count(c) / n) * (y.count(c) / n) for c in cats)
    return None if pe == 1 else (po - pe) / (1 - pe)


def kappa_counts(x, y, k):
    """kappa() of two arrays of category codes (0..k-1, numbered in kappa's order of categories): the same sums in the
    same order, so the same float."""
    n = len(x)
    cx, cy = np.bincount(x, minlength=k).tolist(), np.bincount(y, minlength=k).tolist()
    po = int(np.count_nonzero(x == y)) / n
    pe = sum((cx[c] / n) * (cy[c] / n) for c in range(k) if cx[c] or cy[c])
    return None if pe == 1 else (po - pe) / (1 - pe)


def main(root):
    rows = []
    per_item = {}  # (family, judge) -> [per set: array of item scores (correct AB + correct BA) / 2]
    for ds in sorted(glob.glob(os.path.join(root, '**', 'dataset.json'), recursive=True)):
        set_dir = os.path.dirname(ds)
        name = os.path.relpath(set_dir, root).replace(os.sep, '/')
        data = json.load(open(ds))
        labels = [str(d['label']) for d in data]
        for res in sorted(glob.glob(os.path.join(set_dir, 'evaluators', '*', '*', 'result.json'))):
            judge = '/'.join(res.split(os.sep)[-3:-1])
            items = json.load(open(res))
            ab = [it['results'][-1]['swap = False']['winner'] for it in items]
            ba = [it['results'][-1]['swap = True']['winner'] for it in items]
            # our categories: "1", "2", or unparsed (None)
            cat = lambda w: w if w in ('1', '2') else 'error'
            cab, cba = [cat(w) for w in ab], [cat(w) for w in ba]
            n = len(items)
            correct_ab = sum(a == l for a, l in zip(ab, labels))
            correct_ba = sum(b == l for b, l in zip(ba, labels))
            both = sum(a == l and b == l for a, b, l in zip(ab, ba, labels))
            equal = sum(a == b for a, b in zip(ab, ba))
            # what LLMBar's evaluate.py feeds sklearn's cohen_kappa_score
            bug = lambda w: int(w) if w in ('0', '1') else 0
            int_labels = [int(l) for l in labels]
            llmbar_kappa_ab = kappa([bug(w) for w in ab], int_labels)
            llmbar_kappa_ba = kappa([bug(w) for w in ba], int_labels)
            llmbar_kappa_orders = kappa([bug(w) for w in ab], [bug(w) for w in ba])
            # bootstrap over items (numpy's generator; different draws from ours, so only close, not equal); each
            # round's figures from arrays (item scores, category codes) instead of lists: the same numbers
            rng = np.random.default_rng(12345)
            score = np.array([(a == l) + (b == l) for a, b, l in zip(cab, cba, labels)])
            codes = sorted(set(cab) | set(labels), key=str)
            code_ab = np.array([codes.index(a) for a in cab])
            code_label = np.array([codes.index(l) for l in labels])
            acc, kab = [], []
            for _ in range(2000):
                idx = rng.integers(0, n, n)
                acc.append(np.mean(score[idx]) / 2)
                kab.append(kappa_counts(code_ab[idx], code_label[idx], len(codes)))
            kab = [k for k in kab if k is not None]
            if '/' in name:
                scores = np.array([((a == l) + (b == l)) / 2 for a, b, l in zip(cab, cba, labels)], dtype=float)
                per_item.setdefault((name.split('/')[0], judge), []).append(scores)
            rows.append({
                'set': name, 'judge': judge, 'total': n,
                'correctAB': correct_ab, 'correctBA': correct_ba, 'correctBoth': both, 'agreeOrders': equal,
                'errors': sum(c == 'error' for c in cab + cba),
                'kappaAB': kappa(cab, labels), 'kappaBA': kappa(cba, labels), 'kappaOrders': kappa(cab, cba),
                'llmbarKappaAB': llmbar_kappa_ab, 'llmbarKappaBA': llmbar_kappa_ba,
                'llmbarKappaOrders': llmbar_kappa_orders,
                'accuracyLo': float(np.percentile(acc, 2.5)), 'accuracyHi': float(np.percentile(acc, 97.5)),
                'kappaABLo': float(np.percentile(kab, 2.5)), 'kappaABHi': float(np.percentile(kab, 97.5)),
            })
    for (family, judge), sets in sorted(per_item.items()):
        rng = np.random.default_rng(54321)
        boot = [np.mean([np.mean(x[rng.integers(0, len(x), len(x))]) for x in sets]) for _ in range(2000)]
        rows.append({
            'set': family, 'judge': judge, 'family': True, 'sets': len(sets),
            'total': int(sum(len(x) for x in sets)),
            'accuracy': float(np.mean([np.mean(x) for x in sets])),
            'pooledAccuracy': float(np.mean(np.concatenate(sets))),
            'accuracyLo': float(np.percentile(boot, 2.5)), 'accuracyHi': float(np.percentile(boot, 97.5)),
        })
    json.dump(rows, sys.stdout)


if __name__ == '__main__':
    main(sys.argv[1])
