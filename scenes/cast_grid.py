#!/usr/bin/env python3
"""Generate scenes/cast-grid.scene.json and cast-grid.queries.json: Box2D v3's
query benchmark (`BenchmarkCast` in box2d/samples/sample_benchmark.cpp), in
Arbiter's formats (scenes/FORMAT.md).

Scene: a 1000 x 1000 grid of unit cells, cell (i, j) centred at (j, i); each
cell holds a box with probability 1/10 (about 100,000 static bodies). A box
has half width w uniform in [0.05, 0.25] and aspect a uniform in [1, 5],
long along x or along y with equal odds: half extents (a w, w) or (w, a w).
Boxes are axis aligned; a long one reaches 1.25 from its centre, so
neighbours can overlap, as in Box2D's scene.

Queries, as Box2D draws them: 10,000 pairs of points, both ends uniform over
[0, 1000]^2; the same pairs give
  rays     origin = start, translation = end - start;
  sweeps   a disk of radius 0.1 at start moved by end - start (b2World_CastShape);
  circles  a disk of radius 5 at start (Box2D's "overlap" query uses radius 5);
  aabbs    the box start +- (5, 5) (what b2World_OverlapAABB gets there).
Box2D's collision filter (a random category of three, queried with mask 1)
is left out: the scene format has no filters, so every box is a candidate.

Randomness is splitmix64 (generate.py), seeds 1234 (scene) and 4321
(queries); every number is rounded to the 1/1024 grid, exact in Q32.32 and
in float. Usage: cast_grid.py [OUTDIR] (default: this script's directory).
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree (CTest runs this)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate import SplitMix64, dump, q, vec  # noqa: E402

ROWS = COLUMNS = 1000
FILL = 0.1
RATIO = 5.0
QUERY_COUNT = 10000
CAST_RADIUS = 0.1
OVERLAP_RADIUS = 5.0
NAME = "cast-grid"


def grid_bodies(rng):
    bodies = []
    for i in range(ROWS):
        for j in range(COLUMNS):
            if rng.unit() >= FILL:
                continue
            ratio = rng.uniform(1.0, RATIO)
            half_width = rng.uniform(0.05, 0.25)
            long_x = rng.below(2) == 0
            half = vec(ratio * half_width, half_width) if long_x else vec(half_width, ratio * half_width)
            bodies.append({"id": len(bodies) + 1, "type": "static", "position": vec(j, i),
                           "shapes": [{"box": {"half": half}}]})
    return bodies


def query_sets(rng):
    out = {"rays": [], "aabbs": [], "circles": [], "sweeps": []}
    extent = float(ROWS)
    for _ in range(QUERY_COUNT):
        sx, sy = q(rng.uniform(0, extent)), q(rng.uniform(0, extent))
        ex, ey = q(rng.uniform(0, extent)), q(rng.uniform(0, extent))
        start, translation = {"x": sx, "y": sy}, {"x": ex - sx, "y": ey - sy}
        out["rays"].append({"origin": start, "translation": translation})
        out["sweeps"].append({"circle": {"center": start, "radius": q(CAST_RADIUS)}, "translation": translation})
        out["circles"].append({"center": start, "radius": OVERLAP_RADIUS})
        out["aabbs"].append({"min": {"x": sx - OVERLAP_RADIUS, "y": sy - OVERLAP_RADIUS},
                             "max": {"x": sx + OVERLAP_RADIUS, "y": sy + OVERLAP_RADIUS}})
    return out


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out, exist_ok=True)
    dump(os.path.join(out, NAME + ".scene.json"),
         {"format": "arbiter-scene/1", "name": NAME, "gravity": vec(0, 0), "tick_hz": 60,
          "bodies": grid_bodies(SplitMix64(1234))})
    dump(os.path.join(out, NAME + ".queries.json"),
         {"format": "arbiter-queries/1", "scene": NAME, **query_sets(SplitMix64(4321))})


if __name__ == "__main__":
    main()
