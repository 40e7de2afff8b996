#!/usr/bin/env python3
"""Generate scenes/pyramid-5k.scene.json: Box2D's `large_pyramid` benchmark
(box2d/benchmark, one thread), in Arbiter's scene format (scenes/FORMAT.md).

  body 1       the ground: a static box 200 wide and 2 deep, its top at y = 0;
  bodies 2..   a pyramid of unit boxes (half extent 0.5) with a base of 100,
               99 on the next row, ... 1 on top: 5,050 dynamic boxes, each
               row's boxes touching and resting on the row below, as Box2D
               lays them out (x = (i + 1) h + 2 (j - i) h - 100 h,
               y = (2 i + 1) h for row i and column j >= i, h = 0.5).

Gravity -10, 60 Hz, default materials (friction 0.6, restitution 0,
density 1). `steps` is 600: issue 23 asks the pyramid to stand (the top box
within 0.1 units of its start height after 600 ticks). With the solver's
defaults (4 sub-steps, contact hertz 30: Box2D v3's) it sags 0.93 units,
the soft contacts' give summed over 100 rows, so the scene declares stiffer
settings, as a Box2D v3 user would through b2WorldDef.contactHertz and
b2World_Step's subStepCount: "sub_steps" 8 and "contact_hertz" 120 (a
quarter of the 480 Hz sub-step rate, the most the solver uses). Every number is a
multiple of 1/2, exact in Q32.32; nothing is random. Usage:
pyramid.py [OUT] (default: pyramid-5k.scene.json beside this script).
"""
import json, os, sys

BASE = 100
H = 0.5


def pyramid_bodies():
    bodies = [{"id": 1, "type": "static", "position": {"x": 0.0, "y": -1.0},
               "shapes": [{"box": {"half": {"x": 100.0, "y": 1.0}}}]}]
    next_id = 2
    for i in range(BASE):
        y = (2 * i + 1) * H
        for j in range(i, BASE):
            x = (i + 1) * H + 2 * (j - i) * H - H * BASE
            bodies.append({"id": next_id, "type": "dynamic", "position": {"x": x, "y": y},
                           "shapes": [{"box": {"half": {"x": H, "y": H}}}]})
            next_id += 1
    return bodies


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                              "pyramid-5k.scene.json")
    scene = {"format": "arbiter-scene/1", "name": "pyramid-5k", "gravity": {"x": 0.0, "y": -10.0}, "tick_hz": 60,
             "sub_steps": 8, "contact_hertz": 120, "steps": 600, "bodies": pyramid_bodies()}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(scene, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
