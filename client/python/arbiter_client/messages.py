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


def cast_results(results):
    return [CastResult(r.hit, [Hit.of(h) for h in r.hits]) for r in results]


def overlap_results(results):
    return [[(s.body_id, s.shape_index) for s in r.shapes] for r in results]
