#!/usr/bin/env python3
"""Writes ranks.json: the example's embedded data set, 90 days of daily keyword ranks of one
note-taking app ("Notely") in two stores and two countries.

Deterministic (fixed seed). The story it tells, on the last day:
- `habit tracker` (US, App Store) and `daily planner` (US, App Store) and `journal` (US, App Store)
  fall sharply: the example raises `rank.dropped` alerts and, as three fell at once, a
  `rank.collapsed` banner;
- `checklist` climbs steadily (a top mover upwards);
- Google Play's ranking changed on day 78 (`store.algorithm_updated`), visible as a jump on
  every Google Play keyword.

Run: python3 examples/keyword-tracker/data/generate.py
"""
import json
import os
import random

DAYS = 90
KEYWORDS = [
    # keyword, search volume (monthly, US), difficulty 0-100, typical rank
    ("notes", 8200, 78, 9),
    ("note taking", 5400, 64, 4),
    ("notebook", 3900, 58, 12),
    ("journal", 4700, 61, 7),
    ("to do list", 6100, 72, 18),
    ("checklist", 2300, 41, 30),
    ("habit tracker", 5200, 66, 6),
    ("planner", 4400, 69, 15),
    ("daily planner", 2900, 52, 8),
    ("handwriting notes", 1300, 35, 3),
    ("pdf annotate", 1800, 47, 21),
    ("voice memo", 2100, 55, 40),
]
COUNTRIES = {"US": 1.0, "GB": 0.3}
STORES = ["app_store", "google_play"]
ALGORITHM_DAY = 78  # Google Play


def walk(rng, typical, keyword, country, store):
    ranks = []
    rank = typical * rng.uniform(0.8, 1.2) * (1.0 if store == "app_store" else 1.3)
    for day in range(DAYS):
        target = typical
        if keyword == "checklist" and country == "US":
            target = max(4.0, typical - 0.3 * day)  # a steady climb
        rank += rng.gauss(0, 0.6) + (target - rank) * 0.15
        if store == "google_play" and day == ALGORITHM_DAY:
            rank *= rng.choice([0.6, 1.5])
        ranks.append(rank)
    if country == "US" and store == "app_store":
        if keyword == "habit tracker":
            ranks[-1] = 24
        if keyword == "daily planner":
            ranks[-1] = 27
        if keyword == "journal":
            ranks[-1] = 31
    return [max(1, round(r)) if r < 200 else None for r in ranks]


def main():
    rng = random.Random(20261121)
    series = []
    for keyword, volume, difficulty, typical in KEYWORDS:
        for country, share in COUNTRIES.items():
            for store in STORES:
                series.append({
                    "keyword": keyword,
                    "country": country,
                    "store": store,
                    "volume": round(volume * share),
                    "difficulty": difficulty,
                    "ranks": walk(rng, typical, keyword, country, store),
                })
    data = {
        "app": "Notely",
        "days": DAYS,
        "note": "ranks[i] is the rank on day i, oldest first; the last day is replayed as today",
        "algorithmUpdates": [{"store": "google_play", "day": ALGORITHM_DAY}],
        "series": series,
    }
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ranks.json")
    with open(out, "w") as f:
        f.write("{\n")
        keys = list(data)
        for i, k in enumerate(keys):
            if k == "series":
                f.write('  "series": [\n')
                f.write(",\n".join("    " + json.dumps(s, separators=(", ", ": ")) for s in series))
                f.write("\n  ]")
            else:
                f.write(f"  {json.dumps(k)}: {json.dumps(data[k])}")
            f.write(",\n" if i < len(keys) - 1 else "\n")
        f.write("}\n")


if __name__ == "__main__":
    main()
