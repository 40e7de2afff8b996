"""arbiter_client: a Python client of the Arbiter collision service.

Needs Debian's python3-grpcio and python3-protobuf and the stubs of
arbiter.v1: either `pip install ./client/python` (its build generates them
into the installed package) or the CMake build's <build>/client/python/gen
(put that directory and client/python on PYTHONPATH).
"""

try:
    from arbiter.v1 import arbiter_pb2 as pb  # noqa: F401
except ImportError as e:  # pragma: no cover
    raise ImportError("arbiter_client needs the generated stubs: pip install ./client/python, or build the project "
                      "(cmake --build build) and put build/client/python/gen on PYTHONPATH") from e

from .client import Client
from .errors import ArbiterError, ArbiterValueError
from .fleet import (FleetListing, FleetWorld, MigrationReport, list_fleet_worlds, migrate_world, resume_migration,
                    thaw_world)
from .messages import (Answer, CastResult, Contact, Hit, MoveAnswer, MoveJudgement, MoveOutcome, MovePlane, Nearby,
                       ShotAnswer, ShotJudgement, Verdict, aabb_query, body, box, capsule, chain, circle, distance_query, move_claim, past_tick,
                       point_query, polygon, ray, segment, shape_cast, shape_move, shape_query, shot, transform, vec2)
from .units import fixed_from_double, to_raw, to_units

__all__ = ["Client", "ArbiterError", "ArbiterValueError", "FleetListing", "FleetWorld", "MigrationReport",
           "list_fleet_worlds", "migrate_world", "resume_migration", "thaw_world", "Answer",
           "CastResult", "Contact", "Nearby", "distance_query", "Hit", "MoveAnswer", "MoveJudgement", "MoveOutcome", "MovePlane", "ShotAnswer", "ShotJudgement", "shot", "Verdict", "aabb_query", "body",
           "box", "capsule", "chain", "circle", "move_claim", "past_tick", "point_query", "polygon", "ray", "segment",
           "shape_cast", "shape_move", "shape_query", "transform", "vec2", "fixed_from_double", "to_raw", "to_units"]
