#!/usr/bin/env python3
"""Generate scenes/terrain.scene.json: terrain built from one-sided chains
(scenes/FORMAT-chains.md).

  body 1  the floor, an open chain running right to left (so it faces up):
          a straight 45-degree ramp of 60 collinear one-unit segments from
          (-100, 60) down to (-40, 0), then hills out to x = 100;
  body 2  a cave, a clockwise loop (solid outside, hollow inside) above the
          hills;
  body 3  a floating rock, a counter-clockwise loop (solid inside);
  bodies 10..  boxes (squares turned 45 degrees, lying flat on the ramp) and
          circles released on the ramp, a few boxes on the hills and circles
          in the cave.

The ramp is what tests/world/terrain_test.cc slides bodies down: built from
chain segments they do not catch on the 60 joints; the same ramp built of
plain segments does. Every number is a multiple of 1/1024 (exact in Q32.32).
Deterministic: no randomness, and each coordinate is rounded from a sine on
a 1/1024 grid. Usage: terrain.py [OUT] (default: terrain.scene.json beside
this script).
"""
import json, math, os, sys

Q = 1024.0


def q(v):
    return round(v * Q) / Q


def vec(x, y):
    return {"x": q(x), "y": q(y)}


def floor_points():
    points = []
    for x in range(100, -101, -1):  # right to left: the normal points up
        if x <= -40:
            y = -(x + 40)
        else:
            u = x + 40
            y = 3 * math.sin(u / 7.0) + 1.2 * math.sin(u / 2.3)
        points.append(vec(x, y))
    return points


def loop_points(rx, ry, n, clockwise, wobble):
    points = []
    for k in range(n):
        a = 2 * math.pi * k / n
        if clockwise:
            a = -a
        r = 1 + wobble * math.sin(3 * a) + 0.5 * wobble * math.sin(7 * a)
        points.append(vec(rx * r * math.cos(a), ry * r * math.sin(a)))
    return points


RAMP_NORMAL = (math.sqrt(0.5), math.sqrt(0.5))


def on_ramp(x, lift):
    """A point `lift` above the ramp's surface at abscissa x."""
    y = -(x + 40)
    return vec(x + lift * RAMP_NORMAL[0], y + lift * RAMP_NORMAL[1])


def diamond(h):
    return {"polygon": {"points": [vec(h, 0), vec(0, h), vec(-h, 0), vec(0, -h)]}}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "terrain.scene.json")
    bodies = [
        {"id": 1, "type": "static", "position": vec(0, 0), "shapes": [{"chain": {"points": floor_points()}}]},
        {"id": 2, "type": "static", "position": vec(40, 40),
         "shapes": [{"chain": {"points": loop_points(24, 10, 64, True, 0.08), "loop": True}}]},
        {"id": 3, "type": "static", "position": vec(-10, 22),
         "shapes": [{"chain": {"points": loop_points(6, 3, 24, False, 0.12), "loop": True}}]},
    ]
    next_id = 10
    h = 0.75  # half diagonal of a ramp box: side 1.06
    for x in (-96, -91, -86):  # boxes higher up the ramp than the circles
        bodies.append({"id": next_id, "type": "dynamic", "position": on_ramp(x, h * math.sqrt(0.5) + 1 / 64.0),
                       "shapes": [diamond(h)]})
        next_id += 1
    for x, r in ((-80, 0.5), (-74, 0.75), (-68, 0.4)):
        bodies.append({"id": next_id, "type": "dynamic", "position": on_ramp(x, r + 1 / 64.0),
                       "shapes": [{"circle": {"center": vec(0, 0), "radius": q(r)}}]})
        next_id += 1
    for x in (10, 30, 55, 80):  # boxes dropped on the hills
        bodies.append({"id": next_id, "type": "dynamic", "position": vec(x, 9),
                       "shapes": [{"box": {"half": vec(0.6, 0.6)}}]})
        next_id += 1
    for dx in (-12, -4, 4, 12):  # circles dropped into the cave
        bodies.append({"id": next_id, "type": "dynamic", "position": vec(40 + dx, 42),
                       "shapes": [{"circle": {"center": vec(0, 0), "radius": 1}}]})
        next_id += 1
    scene = {"format": "arbiter-scene/1", "name": "terrain", "gravity": vec(0, -10), "tick_hz": 60, "steps": 600,
             "bodies": bodies}
    with open(out, "w") as f:
        json.dump(scene, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
