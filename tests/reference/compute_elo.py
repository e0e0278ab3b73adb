#!/usr/bin/python3
"""FastChat's online Elo, as `compute_elo` in fastchat/serve/monitor/rating_systems.py (see
/work/shared/docs/mt-bench-protocol.md section 7), in plain Python.

Reads battles as JSON on stdin: [[model_a, model_b, winner], ...] in the order they are played;
winner "model_a" scores 1, "model_b" 0, anything else (a tie) 0.5. Prints {"model": rating} as JSON.
"""
import json
import math
import sys


def compute_elo(battles, k=4.0, base=10.0, init_rating=1000.0, scale=400.0):
    alpha = math.log(base) / scale
    ratings = {}
    for model_a, model_b, winner in battles:
        ra = ratings.setdefault(model_a, init_rating)
        rb = ratings.setdefault(model_b, init_rating)
        outcome = 1.0 if winner == "model_a" else 0.0 if winner == "model_b" else 0.5
        prob = 1.0 / (1.0 + math.exp(alpha * (rb - ra)))
        update = k * (outcome - prob)
        ratings[model_a] = ra + update
        ratings[model_b] = rb - update
    return ratings


if __name__ == "__main__":
    json.dump(compute_elo(json.load(sys.stdin)), sys.stdout)
