"""Request builders (world units in) and result views (floats and raw ints out).

Every builder takes world units as int or float and converts them with
units.to_raw, naming the field on error; a protobuf message passed where a
builder's result is expected is used as it is.
"""

from dataclasses import dataclass

from arbiter.v1 import arbiter_pb2 as pb
from arbiter.v1 import geometry_pb2 as geo

from .errors import ArbiterValueError
from .units import to_raw, to_units

BODY_TYPES = {"static": pb.BODY_TYPE_STATIC, "kinematic": pb.BODY_TYPE_KINEMATIC, "dynamic": pb.BODY_TYPE_DYNAMIC}
CAST_MODES = {"closest": pb.CAST_MODE_CLOSEST, "all": pb.CAST_MODE_ALL, "any": pb.CAST_MODE_ANY}
VERDICTS = {pb.HIT_VERDICT_CONFIRMED: "confirmed", pb.HIT_VERDICT_BLOCKED: "blocked", pb.HIT_VERDICT_MISSED: "missed"}
MOVE_VERDICTS = {pb.MOVE_VERDICT_VALID: "valid", pb.MOVE_VERDICT_CORRECTED: "corrected",
                 pb.MOVE_VERDICT_REJECTED: "rejected"}
SHOT_VERDICTS = {pb.SHOT_VERDICT_CONFIRMED: "confirmed", pb.SHOT_VERDICT_BLOCKED: "blocked",
                 pb.SHOT_VERDICT_MISSED: "missed", pb.SHOT_VERDICT_MISMATCHED: "mismatched",
                 pb.SHOT_VERDICT_TOO_OLD: "too_old"}
FLIGHT_ENDS = {pb.FLIGHT_END_HIT: "hit", pb.FLIGHT_END_FLIGHT_OVER: "flight_over",
               pb.FLIGHT_END_CURRENT_TICK: "current_tick", pb.FLIGHT_END_LEFT_WORLD: "left_world"}


def vec2(xy, field="vec"):
    if isinstance(xy, geo.Vec2):
        return xy
    x, y = xy
    return geo.Vec2(x=to_raw(x, field + ".x"), y=to_raw(y, field + ".y"))


def transform(position=(0, 0), rotation=None, field="transform"):
    """`rotation`: (cos, sin) in units, or a geo.Rot; None: identity."""
    t = geo.Transform(position=vec2(position, field + ".position"))
    if rotation is not None:
        t.rotation.CopyFrom(rotation if isinstance(rotation, geo.Rot) else
                            geo.Rot(c=to_raw(rotation[0], field + ".rotation.c"),
                                    s=to_raw(rotation[1], field + ".rotation.s")))
    return t


def circle(radius, center=(0, 0)):
    return geo.Shape(circle=geo.Circle(center=vec2(center, "circle.center"), radius=to_raw(radius, "circle.radius")))


def box(half_width, half_height, center=(0, 0)):
    return geo.Shape(box=geo.Box(half_extents=vec2((half_width, half_height), "box.half_extents"),
                                 center=vec2(center, "box.center")))


def polygon(points, radius=0):
    return geo.Shape(polygon=geo.Polygon(points=[vec2(p, f"polygon.points[{i}]") for i, p in enumerate(points)],
                                         radius=to_raw(radius, "polygon.radius")))


def capsule(center1, center2, radius):
    return geo.Shape(capsule=geo.Capsule(center1=vec2(center1, "capsule.center1"),
                                         center2=vec2(center2, "capsule.center2"),
                                         radius=to_raw(radius, "capsule.radius")))


def segment(point1, point2):
    return geo.Shape(segment=geo.Segment(point1=vec2(point1, "segment.point1"), point2=vec2(point2, "segment.point2")))


def chain(points, loop=False):
    """A one-sided chain through `points` (body frame): it collides only from
    the right of each segment (a counter-clockwise loop faces outward). The
    server expands it into one chain segment per edge, each its own shape
    index. Only static and kinematic bodies may hold chains."""
    return geo.Shape(chain=geo.Chain(points=[vec2(p, f"chain.points[{i}]") for i, p in enumerate(points)], loop=loop))


def body(id, type, position=(0, 0), shapes=(), velocity=None, **fields):
    """A BodyDef: `type` "static", "kinematic" or "dynamic"; `shapes` Shapes
    or ShapeDefs; other BodyDef fields (is_bullet, ...) by keyword."""
    if type not in BODY_TYPES:
        raise ArbiterValueError("type", f"{type!r} is not one of {sorted(BODY_TYPES)}")
    b = pb.BodyDef(id=id, type=BODY_TYPES[type], transform=transform(position), **fields)
    for s in shapes:
        b.shapes.append(s if isinstance(s, pb.ShapeDef) else pb.ShapeDef(shape=s))
    if velocity is not None:
        b.linear_velocity.CopyFrom(vec2(velocity, "linear_velocity"))
    return b


def ray(origin, translation):
    if isinstance(origin, pb.Ray):
        return origin
    return pb.Ray(origin=vec2(origin, "ray.origin"), translation=vec2(translation, "ray.translation"))


def point_query(xy):
    return pb.OverlapQuery(point=vec2(xy, "point"))


def aabb_query(lower, upper):
    return pb.OverlapQuery(aabb=geo.Aabb(lower=vec2(lower, "aabb.lower"), upper=vec2(upper, "aabb.upper")))


def shape_query(shape, position=(0, 0), rotation=None):
    return pb.OverlapQuery(shape=pb.ShapeQuery(shape=shape, transform=transform(position, rotation)))


def shape_cast(shape, position, translation, rotation=None):
    return pb.ShapeCast(shape=shape, transform=transform(position, rotation),
                        translation=vec2(translation, "translation"))


def shape_move(shape, position, translation, rotation=None):
    """A ShapeMove for move_shapes: `shape` placed at `position` (units)
    tries to move by `translation` (units) and slide."""
    return pb.ShapeMove(shape=shape, transform=transform(position, rotation),
                        translation=vec2(translation, "translation"))


def move_claim(body_id, tick, positions, shape_index=0, field="claim"):
    """A MoveClaim: body `body_id` (its shape `shape_index`) claims to be at
    `positions` (units) at tick + 1, tick + 2, ..."""
    return pb.MoveClaim(body_id=body_id, shape_index=shape_index, tick=tick,
                        positions=[vec2(p, f"{field}.positions[{i}]") for i, p in enumerate(positions)])


def shot(shooter_body_id, shot_id, fire, origin, velocity, target_body_id, impact_tick, flight_ticks=60,
         acceleration=None, radius=0, impact_point=None, field="shot"):
    """A Shot for validate_shots: fired by `shooter_body_id` at `fire` (a
    tick, (tick, fraction) or pb.PastTick) from `origin` at `velocity`
    (units/s), with constant `acceleration` (units/s^2, e.g. gravity), as a
    point (radius 0) or a disk, flying at most `flight_ticks`; it claims to
    hit `target_body_id` at `impact_tick` (and `impact_point`, units)."""
    s = pb.Shot(shooter_body_id=shooter_body_id, shot_id=shot_id, fire=past_tick(fire) or pb.PastTick(),
                origin=vec2(origin, field + ".origin"), velocity=vec2(velocity, field + ".velocity"),
                radius=to_raw(radius, field + ".radius"), flight_ticks=flight_ticks,
                target_body_id=target_body_id, impact_tick=impact_tick)
    if acceleration is not None:
        s.acceleration.CopyFrom(vec2(acceleration, field + ".acceleration"))
    if impact_point is not None:
        s.impact_point.CopyFrom(vec2(impact_point, field + ".impact_point"))
    return s


def past_tick(at):
    """`at`: a tick (int), (tick, fraction in units) or a pb.PastTick; None: live."""
    if at is None or isinstance(at, pb.PastTick):
        return at
    if isinstance(at, int):
        return pb.PastTick(tick=at)
    tick, fraction = at
    return pb.PastTick(tick=tick, fraction=to_raw(fraction, "at.fraction"))


def cast_mode(mode):
    if mode not in CAST_MODES:
        raise ArbiterValueError("mode", f"{mode!r} is not one of {sorted(CAST_MODES)}")
    return CAST_MODES[mode]


# ---- Results ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Hit:
    """A hit: world units as floats, and the exact raw values beside them."""
    body_id: int
    shape_index: int
    user_tag: int
    fraction: float
    point: tuple
    normal: tuple
    fraction_raw: int
    point_raw: tuple
    normal_raw: tuple

    @classmethod
    def of(cls, h):
        return cls(h.body_id, h.shape_index, h.user_tag, to_units(h.fraction),
                   (to_units(h.point.x), to_units(h.point.y)), (to_units(h.normal.x), to_units(h.normal.y)),
                   h.fraction, (h.point.x, h.point.y), (h.normal.x, h.normal.y))


@dataclass(frozen=True)
class CastResult:
    hit: bool
    hits: list  # of Hit


@dataclass(frozen=True)
class Answer:
    """A query's answer: the tick (and PastTick fraction, raw) it belongs to
    and one result per query, in request order."""
    tick: int
    tick_fraction_raw: int
    results: list


@dataclass(frozen=True)
class Verdict:
    tick: int
    verdict: str  # "confirmed", "blocked" or "missed"
    first_hit: object  # Hit or None
    target_hit: object  # Hit or None


@dataclass(frozen=True)
class MovePlane:
    """A surface a move met: world units as floats, raw beside them."""
    body_id: int
    shape_index: int
    normal: tuple
    point: tuple
    pushed_out: bool
    normal_raw: tuple
    point_raw: tuple

    @classmethod
    def of(cls, p):
        return cls(p.body_id, p.shape_index, (to_units(p.normal.x), to_units(p.normal.y)),
                   (to_units(p.point.x), to_units(p.point.y)), p.pushed_out, (p.normal.x, p.normal.y),
                   (p.point.x, p.point.y))


@dataclass(frozen=True)
class MoveJudgement:
    """One claim's judgement (see MoveJudgement in arbiter.proto): world units
    as floats, and the exact raw values beside them."""
    body_id: int
    verdict: str  # "valid", "corrected" or "rejected"
    judged_tick: int
    accepted_position: tuple
    claimed_position: tuple
    reason: str
    step_length: float  # rejected: the claimed step's length
    max_step: float     # rejected: max_speed / tick_hz
    planes: list        # corrected: MovePlanes met, in order
    blocked: bool       # corrected: the server's move was blocked
    accepted_position_raw: tuple
    claimed_position_raw: tuple
    step_length_raw: int
    max_step_raw: int

    @classmethod
    def of(cls, j):
        a, c = j.accepted_position, j.claimed_position
        return cls(j.body_id, MOVE_VERDICTS.get(j.verdict, "unspecified"), j.judged_tick,
                   (to_units(a.x), to_units(a.y)), (to_units(c.x), to_units(c.y)), j.reason,
                   to_units(j.step_length), to_units(j.max_step), [MovePlane.of(p) for p in j.planes], j.blocked,
                   (a.x, a.y), (c.x, c.y), j.step_length, j.max_step)


@dataclass(frozen=True)
class ShotJudgement:
    """One shot's judgement (see ShotJudgement in arbiter.proto): world units
    as floats, ticks with their fractions, the exact raw values beside them."""
    shooter_body_id: int
    shot_id: int
    verdict: str          # "confirmed", "blocked", "missed", "mismatched" or "too_old"
    duplicate: bool       # judged before: the first judgement
    hit: object           # a Hit, or None
    impact: tuple         # (tick, fraction) of the hit, or None
    end: str              # "hit", "flight_over", "current_tick", "left_world" ("" for too_old)
    end_at: tuple         # (tick, fraction)
    end_position: tuple
    ticks_traced: int
    oldest_allowed_tick: int
    judged_at_tick: int
    reason: str
    end_position_raw: tuple

    @classmethod
    def of(cls, j):
        p = j.end_position
        return cls(j.shooter_body_id, j.shot_id, SHOT_VERDICTS.get(j.verdict, "unspecified"), j.duplicate,
                   Hit.of(j.hit) if j.HasField("hit") else None,
                   (j.impact.tick, to_units(j.impact.fraction)) if j.HasField("impact") else None,
                   FLIGHT_ENDS.get(j.end, ""), (j.end_at.tick, to_units(j.end_at.fraction)),
                   (to_units(p.x), to_units(p.y)), j.ticks_traced, j.oldest_allowed_tick, j.judged_at_tick,
                   j.reason, (p.x, p.y))


@dataclass(frozen=True)
class ShotAnswer:
    """ValidateShots' answer: the current tick (the first call's, when split)
    and one ShotJudgement per shot, in order."""
    tick: int
    judgements: list


@dataclass(frozen=True)
class MoveOutcome:
    """Where one move of move_shapes ended (see MoveOutcome in arbiter.proto):
    world units as floats, the exact raw values beside them."""
    position: tuple
    fraction: float  # of the wanted translation achieved, in [0, 1]
    blocked: bool    # translation was left that the mover could not take
    planes: list     # MovePlanes met, in order
    iterations: int  # casts made
    position_raw: tuple
    fraction_raw: int

    @classmethod
    def of(cls, o):
        return cls((to_units(o.position.x), to_units(o.position.y)), to_units(o.fraction), o.blocked,
                   [MovePlane.of(p) for p in o.planes], o.iterations, (o.position.x, o.position.y), o.fraction)


def move_outcomes(results):
    return [MoveOutcome.of(o) for o in results]


@dataclass(frozen=True)
class MoveAnswer:
    """ValidateMove's answer: the current tick the claims were judged under
    (the first call's, when split) and one MoveJudgement per claim, in order."""
    tick: int
    judgements: list


def cast_results(results):
    return [CastResult(r.hit, [Hit.of(h) for h in r.hits]) for r in results]


def overlap_results(results):
    return [[(s.body_id, s.shape_index) for s in r.shapes] for r in results]


def _units2(v):
    return (to_units(v.x), to_units(v.y))


@dataclass(frozen=True)
class Contact:
    """An overlap's way out (OverlapContact): moving the query shape by
    push_out (= -normal * depth) leaves it touching the body's shape."""
    body_id: int
    shape_index: int
    normal: tuple  # unit, from the query shape towards the body
    depth: float   # >= 0; 0 when touching
    points: list   # 1 or 2 (x, y), midway between the surfaces
    push_out: tuple
    normal_raw: tuple
    depth_raw: int
    points_raw: list

    @classmethod
    def of(cls, ref, c):
        depth = to_units(c.depth)
        normal = _units2(c.normal)
        return cls(ref.body_id, ref.shape_index, normal, depth, [_units2(p) for p in c.points],
                   (-normal[0] * depth, -normal[1] * depth), (c.normal.x, c.normal.y), c.depth,
                   [(p.x, p.y) for p in c.points])


def contact_results(results):
    return [[Contact.of(s, c) for s, c in zip(r.shapes, r.contacts)] for r in results]


def distance_query(shape, position=(0, 0), max_distance=100, max_results=1, rotation=None):
    """The bodies within `max_distance` units of `shape` placed at `position`
    (at most `max_results`, 1..256, nearest first)."""
    return pb.DistanceQuery(shape=shape_query(shape, position, rotation).shape,
                            max_distance=to_raw(max_distance, "max_distance"), max_results=max_results)


@dataclass(frozen=True)
class Nearby:
    """A body near a distance query's shape (DistanceHit), at its nearest shape."""
    body_id: int
    shape_index: int
    user_tag: int
    distance: float      # 0 when overlapping
    point_query: tuple   # closest point on the query shape
    point_body: tuple    # closest point on the body
    normal: tuple        # unit, query towards body; the contact normal when overlapping
    depth: float         # the overlap's depth; 0 when apart
    distance_raw: int
    point_query_raw: tuple
    point_body_raw: tuple
    normal_raw: tuple
    depth_raw: int

    @classmethod
    def of(cls, h):
        return cls(h.body_id, h.shape_index, h.user_tag, to_units(h.distance), _units2(h.point_query),
                   _units2(h.point_body), _units2(h.normal), to_units(h.depth), h.distance,
                   (h.point_query.x, h.point_query.y), (h.point_body.x, h.point_body.y), (h.normal.x, h.normal.y),
                   h.depth)


def distance_results(results):
    return [[Nearby.of(h) for h in r.hits] for r in results]
