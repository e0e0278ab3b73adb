"""Independent reference for `arena accuracy` on LLMBar (tests/importers/pairs.test.ts).

Reads <dir>/<set>/dataset.json and <set>/evaluators/<LLM>/<strategy>/result.json straight from the files
(never from our database) and prints one JSON row per set and judge: LLMBar's counts (its evaluate.py rule),
Cohen's kappa by hand with an unparsed verdict as its own category, the kappa LLMBar's code prints
(it maps a "2" verdict to 0 but keeps the labels 1/2), and numpy percentile-bootstrap intervals over items.
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


def main(root):
    rows = []
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
            # bootstrap over items (numpy's generator; different draws from ours, so only close, not equal)
            rng = np.random.default_rng(12345)
            acc, kab = [], []
            for _ in range(2000):
                idx = rng.integers(0, n, n)
                acc.append(np.mean([(cab[i] == labels[i]) + (cba[i] == labels[i]) for i in idx]) / 2)
                kab.append(kappa([cab[i] for i in idx], [labels[i] for i in idx]))
            kab = [k for k in kab if k is not None]
            rows.append({
                'set': name, 'judge': judge, 'total': n,
                'correctAB': correct_ab, 'correctBA': correct_ba, 'correctBoth': both, 'agreeOrders': equal,
                'errors': sum(c == 'error' for c in cab + cba),
                'kappaAB': kappa(cab, labels), 'kappaBA': kappa(cba, labels), 'kappaOrders': kappa(cab, cba),
                'llmbarKappaAB': llmbar_kappa_ab, 'llmbarKappaBA': llmbar_kappa_ba,
                'accuracyLo': float(np.percentile(acc, 2.5)), 'accuracyHi': float(np.percentile(acc, 97.5)),
                'kappaABLo': float(np.percentile(kab, 2.5)), 'kappaABHi': float(np.percentile(kab, 97.5)),
            })
    json.dump(rows, sys.stdout)


if __name__ == '__main__':
    main(sys.argv[1])
