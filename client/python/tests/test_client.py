"""Every RPC through arbiter_client against a live server (max_batch 100)."""

import itertools
import queue
import threading

import grpc
import pytest

import arbiter_client as ac
from arbiter.v1 import arbiter_pb2 as pb
from arbiter.v1 import geometry_pb2 as geo

_ids = itertools.count()


def world_id():
    return f"py-{next(_ids)}"


@pytest.fixture
def client(server):
    with ac.Client(server.address) as c:
        yield c


def small_world(client, wid, **kw):
    return client.create_world(wid, gravity=(0, -10), bodies=[
        ac.body(1, "static", (0, -1), [ac.box(40, 1)]),
        ac.body(2, "dynamic", (0, 5), [ac.box(1, 1)]),
        ac.body(3, "dynamic", (5, 8), [ac.circle(0.5)]),
    ], **kw)


def test_server_info_is_the_servers_flags(client):
    info = client.get_server_info()
    assert info.limits.max_batch == 100
    assert info.version.count(".") == 2
    assert not info.features.auth_required and not info.features.tls


def test_worlds_create_list_describe_delete(client):
    wid = world_id()
    world = small_world(client, wid)
    assert world.world_id == wid and world.body_count == 3 and world.tick == 0
    assert ac.to_units(world.gravity.y) == -10.0
    assert wid in [w.world_id for w in client.list_worlds()]
    described = client.describe_world(wid, include_bodies=True)
    assert [b.id for b in described.bodies] == [1, 2, 3]
    assert ac.to_units(described.bodies[2].transform.position.x) == 5.0
    assert client.delete_world(wid) == 0
    with pytest.raises(ac.ArbiterError) as e:
        client.describe_world(wid)
    assert e.value.code == grpc.StatusCode.NOT_FOUND


def test_bodies_added_past_max_batch_are_split(client):
    wid = world_id()
    client.create_world(wid)
    bodies = [ac.body(100 + i, "static", (i * 3, 0), [ac.circle(1)]) for i in range(250)]
    assert client.add_bodies(wid, bodies) == 250
    assert client.remove_bodies(wid, [100 + i for i in range(120)]) == 130
    client.update_bodies(wid, [client.set_transform(240, (1000, 1000))])
    assert client.overlap(wid, [ac.point_query((1000, 1000))]).results == [[(240, 0)]]


def test_rays_past_max_batch_are_split_and_answered_in_order(client):
    wid = world_id()
    client.create_world(wid, bodies=[ac.body(i + 1, "static", (i * 4, 0), [ac.circle(1)]) for i in range(60)])
    rays = [((i * 2, 10), (0, -20)) for i in range(250)]  # even i hits body i/2 + 1 at y = 1
    answer = client.cast_rays(wid, rays)
    assert len(answer.results) == 250 and answer.tick == 0
    for i, r in enumerate(answer.results):
        if i % 2 == 0 and i // 2 < 60:
            assert r.hit and r.hits[0].body_id == i // 2 + 1
            hit = r.hits[0]
            assert hit.point == (i * 2, pytest.approx(1.0, abs=1e-6))
            assert hit.point == tuple(ac.to_units(v) for v in hit.point_raw)
            assert hit.fraction == pytest.approx(9 / 20, abs=1e-9) and hit.normal == (0.0, 1.0)
        elif i // 2 >= 60:
            assert not r.hit
    everything = client.cast_rays(wid, [((-10, 0), (300, 0))], mode="all").results[0]
    assert [h.body_id for h in everything.hits] == list(range(1, 61))


def test_overlap_and_shape_casts(client):
    wid = world_id()
    small_world(client, wid)
    answer = client.overlap(wid, [ac.point_query((0, 5)), ac.aabb_query((4, 7), (6, 9)),
                                  ac.shape_query(ac.circle(100)), ac.point_query((30, 30))])
    assert answer.results == [[(2, 0)], [(3, 0)], [(1, 0), (2, 0), (3, 0)], []]
    sweep = client.cast_shapes(wid, [ac.shape_cast(ac.circle(0.5), (0, 20), (0, -30))])
    hit = sweep.results[0].hits[0]
    assert hit.body_id == 2 and hit.fraction == pytest.approx((20 - 6.5) / 30, abs=1e-9)


def subscribed_watch(client, wid):
    """A watch the server has subscribed (it does so some time after the call
    starts): single ticks are stepped until its first event arrives. The
    watch, its events so far (a queue filled by a reader thread)."""
    watch = client.watch_events(wid)
    events = queue.Queue()
    threading.Thread(target=lambda: [events.put(e) for e in watch], daemon=True).start()
    for _ in range(1000):
        client.step(wid, ticks=1, omit_events=True)
        try:
            return watch, events, events.get(timeout=0.01)
        except queue.Empty:
            pass
    raise AssertionError("the watch never delivered an event")


def test_step_watch_hashes_snapshot_restore(client):
    wid = world_id()
    small_world(client, wid)
    watch, events, first = subscribed_watch(client, wid)
    start = client.describe_world(wid).world.tick
    stepped = client.step(wid, ticks=120, hash_every_tick=True)
    assert stepped.tick == start + 120 and len(stepped.ticks) == 120
    seen = [first]
    while seen[-1].tick < stepped.tick:
        seen.append(events.get(timeout=60))
    watch.cancel()
    assert [t.tick for t in seen] == list(range(first.tick, stepped.tick + 1))
    assert seen[-120:] == list(stepped.ticks)  # the watch saw what the step returned
    tick, digest = client.get_state_hash(wid)
    assert (tick, digest) == (stepped.tick, stepped.state_hash)
    report = client.report_hashes(wid, start + 1, [t.state_hash for t in stepped.ticks])  # two calls of 100 and 20
    assert report.in_sync and report.server_hash == digest
    bad = client.report_hashes(wid, start + 1, [t.state_hash for t in stepped.ticks[:5]] + [1234])
    assert not bad.in_sync and bad.first_divergent_tick == start + 6
    snapshot = client.get_snapshot(wid)
    client.step(wid, ticks=5)
    restored = client.restore(wid, snapshot.snapshot, expected_tick=stepped.tick + 5)
    assert restored.tick == stepped.tick and restored.state_hash == digest


def test_past_ticks_and_validate_hit(client):
    wid = world_id()
    client.create_world(wid, bodies=[ac.body(1, "kinematic", (0, 0), [ac.circle(1)], velocity=(60, 0)),
                                     ac.body(2, "static", (-20, 0), [ac.circle(1)])])
    client.step(wid, ticks=10)  # body 1 moved 10 units to x = 10
    live = client.cast_rays(wid, [((0, 10), (0, -20))])
    past = client.cast_rays(wid, [((0, 10), (0, -20))], at=0)
    assert not live.results[0].hit and past.results[0].hits[0].body_id == 1 and past.tick == 0
    half = client.cast_rays(wid, [((5.2, 10), (0, -20))], at=(4, 0.5))  # x = 4.5
    assert half.results[0].hit and half.tick == 4 and half.tick_fraction_raw == ac.to_raw(0.5)
    confirmed = client.validate_hit(wid, 2, 1, (-18, 0), (20, 0), at=0)
    assert confirmed.verdict == "confirmed" and confirmed.target_hit.point == (pytest.approx(-1.0, abs=1e-6), 0.0)
    assert client.validate_hit(wid, 2, 1, (-18, 0), (20, 0)).verdict == "missed"


def test_resting_box_sleeps_and_a_velocity_wakes_it(client):
    wid = world_id()
    info = client.create_world(wid, gravity=(0, -10), tick_hz=60, allow_sleep=True, bodies=[
        ac.body(1, "static", (0, -1), [ac.box(20, 1)]),
        ac.body(2, "dynamic", (0, 0.5), [ac.box(0.5, 0.5)])])
    assert info.allow_sleep
    client.step(wid, ticks=120, omit_events=True)  # at rest from the start: asleep after half a second
    bodies = {b.id: b for b in client.describe_world(wid, include_bodies=True).bodies}
    assert bodies[2].asleep and not bodies[1].asleep
    client.update_bodies(wid, [client.set_velocity(2, (1, 0))])
    bodies = {b.id: b for b in client.describe_world(wid, include_bodies=True).bodies}
    assert not bodies[2].asleep
    plain = client.create_world(world_id(), gravity=(0, -10), tick_hz=60)
    assert not plain.allow_sleep


def test_solver_settings_are_kept_and_checked(client):
    info = client.create_world(world_id(), tick_hz=60, sub_steps=8, contact_hertz=120)
    assert (info.sub_steps, info.contact_hertz) == (8, 120)
    plain = client.create_world(world_id(), tick_hz=60)
    assert (plain.sub_steps, plain.contact_hertz) == (4, 30)
    with pytest.raises(ac.ArbiterError) as e:
        client.create_world(world_id(), sub_steps=0)
    assert "sub_steps" in str(e.value)


def move_world(client, wid):
    """As tests/server/move_service_test.cc: at 60 Hz, player 1 a kinematic
    disk of radius 0.5 at the origin, wall 2 a static box whose left face is
    at x = 5 (y in -10..10); stepped to tick 60."""
    client.create_world(wid, tick_hz=60, history_ticks=120, bodies=[
        ac.body(1, "kinematic", (0, 0), [ac.circle(0.5)]),
        ac.body(2, "static", (6, 0), [ac.box(1, 10)])])
    client.step(wid, ticks=60, omit_events=True)


def path(x0, y0, dx, dy, count):
    return [(x0 + dx * i, y0 + dy * i) for i in range(1, count + 1)]


def test_validate_move_valid_corrected_rejected(client):
    wid = world_id()
    move_world(client, wid)
    fast = [(-1, 0), (-8, 0), (-9, 0)]  # 7 units into tick 12
    answer = client.validate_move(wid, [(1, 10, path(0, 0, -1, 0.5, 8)),  # free
                                        ac.move_claim(1, 10, path(0, 0, 2, 0, 5)),  # into the wall at tick 13
                                        (1, 10, fast)],
                                  max_speed=300, tolerance=0.01)  # 5 units a tick
    assert answer.tick == 60
    valid, corrected, rejected = answer.judgements

    assert valid.verdict == "valid" and valid.body_id == 1 and valid.judged_tick == 18
    assert valid.accepted_position_raw == (-8 << 32, 4 << 32) == valid.claimed_position_raw
    assert valid.accepted_position == (-8.0, 4.0) and valid.planes == [] and not valid.blocked

    # Move-and-slide stops the disk skin-clear (1/64) of the face: x = 4.484375.
    assert corrected.verdict == "corrected" and corrected.judged_tick == 13
    assert corrected.accepted_position_raw == (ac.to_raw(4.5 - 1 / 64), 0) == (287 << 26, 0)
    assert corrected.accepted_position == (4.484375, 0.0)
    assert corrected.claimed_position_raw == (6 << 32, 0)
    assert corrected.blocked and len(corrected.planes) == 1
    wall = corrected.planes[0]
    assert (wall.body_id, wall.shape_index, wall.pushed_out) == (2, 0, False)
    assert wall.normal_raw == (-1 << 32, 0) and wall.normal == (-1.0, 0.0)
    assert wall.point_raw[0] == 5 << 32 and wall.point == tuple(ac.to_units(v) for v in wall.point_raw)
    assert "tick 13" in corrected.reason and "met body 2" in corrected.reason

    assert rejected.verdict == "rejected" and rejected.judged_tick == 12
    assert rejected.step_length_raw == 7 << 32 and rejected.max_step_raw == 5 << 32
    assert (rejected.step_length, rejected.max_step) == (7.0, 5.0)
    assert rejected.accepted_position_raw == (-1 << 32, 0)  # the last accepted claim
    assert rejected.claimed_position_raw == (-8 << 32, 0)
    assert "7.000 units" in rejected.reason and "5.000" in rejected.reason

    # Faster than allowed is judged by max_speed: at 420 units/s (7 a tick) the same path is valid.
    assert client.validate_move(wid, [(1, 10, fast)], max_speed=420).judgements[0].verdict == "valid"


def shot_range(client, wid):
    """As tests/server/shot_service_test.cc: at 60 Hz, shooter 1 a kinematic
    disk at the origin, target 2 a disk of radius 0.5 walking up from
    (10, -1) at 6 units/s; stepped to tick 60."""
    client.create_world(wid, tick_hz=60, history_ticks=120, bodies=[
        ac.body(1, "kinematic", (0, 0), [ac.circle(0.5)]),
        ac.body(2, "kinematic", (10, -1), [ac.circle(0.5)], velocity=(0, 6))])
    client.step(wid, ticks=60, omit_events=True)


def test_validate_shots_confirms_through_the_history_once_per_shot(client):
    wid = world_id()
    shot_range(client, wid)
    rocket = ac.shot(1, 1, 10, (0, 0), (120, 0), 2, 14, flight_ticks=30)
    now = ac.shot(1, 2, 60, (0, 0), (120, 0), 2, 64, flight_ticks=30)
    old = ac.shot(1, 3, 10, (0, 0), (120, 0), 2, 14, flight_ticks=30)
    answer = client.validate_shots(wid, [rocket, now])
    assert answer.tick == 60
    hit, missed = answer.judgements
    assert hit.verdict == "confirmed" and not hit.duplicate and hit.end == "hit"
    assert hit.hit.body_id == 2 and abs(hit.hit.point[0] - 9.7) < 1e-6
    assert hit.impact[0] == 14 and abs(hit.impact[1] - 0.85) < 1e-6 and hit.ticks_traced == 5
    assert missed.verdict == "missed" and missed.end == "current_tick" and missed.end_at == (61, 0.0)
    assert missed.end_position_raw == (2 << 32, 0) and missed.hit is None
    again = client.validate_shots(wid, [ac.shot(1, 1, 10, (0, 0), (120, 0), 2, 99, flight_ticks=30)])
    first = again.judgements[0]
    assert first.duplicate and first.verdict == "confirmed" and first.impact == hit.impact
    capped = client.validate_shots(wid, [old], max_rewind_ticks=20).judgements[0]
    assert capped.verdict == "too_old" and capped.oldest_allowed_tick == 40 and capped.end == ""
    with pytest.raises(ac.ArbiterError) as e:
        client.validate_shots(wid, [ac.shot(1, 9, 61, (0, 0), (120, 0), 2, 64)])
    assert e.value.code == grpc.StatusCode.OUT_OF_RANGE and e.value.field == "shots[0].fire.tick"


def test_validate_move_splits_by_max_batch_and_names_fields(client):
    wid = world_id()
    move_world(client, wid)
    # 3 claims of 40 positions: 120 steps, past the server's 100 together.
    claims = [(1, 10, path(0, 0, -1, 0, 40)), (1, 10, path(0, 0, 0.1, 0, 40)), (1, 15, path(0, 0, 0, 1, 40))]
    together = client.validate_move(wid, claims, max_speed=300)
    alone = [client.validate_move(wid, [c], max_speed=300).judgements[0] for c in claims]
    assert together.judgements == alone
    assert [j.verdict for j in alone] == ["valid", "valid", "valid"]
    assert alone[1].accepted_position_raw == (ac.to_raw(0.1 * 40), 0)
    with pytest.raises(ac.ArbiterError) as e:  # no single call can hold one claim of 101 positions
        client.validate_move(wid, [(1, 0, path(0, 0, 0, 0, 101))], max_speed=300)
    assert e.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED and e.value.field == "claims[0].positions"

    with pytest.raises(ac.ArbiterValueError) as e:  # refused before sending
        client.validate_move(wid, [(1, 10, [(0, 0), (float("inf"), 0)])], max_speed=300)
    assert e.value.field == "claims[0].positions[1].x"
    with pytest.raises(ac.ArbiterValueError) as e:
        client.validate_move(wid, [(1, 10, [(0, 0)])], max_speed=float("nan"))
    assert e.value.field == "max_speed"
    with pytest.raises(ac.ArbiterError) as e:
        client.validate_move(wid, [(99, 10, [(0, 0)])], max_speed=300)
    assert e.value.code == grpc.StatusCode.NOT_FOUND and e.value.field == "claims[0].body_id"
    with pytest.raises(ac.ArbiterError) as e:
        client.validate_move(wid, [(1, 10, [(0, 0)])], max_speed=300, skin=2)
    assert e.value.code == grpc.StatusCode.OUT_OF_RANGE and e.value.field == "skin"


def test_move_shapes_stops_slides_and_splits_by_max_batch(client):
    wid = world_id()
    move_world(client, wid)
    disk = ac.circle(0.5)
    answer = client.move_shapes(wid, [ac.shape_move(disk, (0, -5), (10, 0)),   # head-on into the wall
                                      ac.shape_move(disk, (0, -5), (10, 4)),   # slides up along it
                                      ac.shape_move(disk, (-10, -5), (-3, 1))])  # nothing in the way
    assert answer.tick == 60
    head_on, slid, clear = answer.results
    # 4.484375 = 4.5 - 1/64: skin-clear of the face, to within the cast's rounding (a few raw units).
    assert head_on.blocked and abs(head_on.position_raw[0] - (287 << 26)) <= 8 and head_on.position_raw[1] == -5 << 32
    assert head_on.position == (pytest.approx(4.484375, abs=1e-8), -5.0)
    assert [(p.body_id, p.normal_raw) for p in head_on.planes] == [(2, (-1 << 32, 0))]
    assert not slid.blocked and abs(slid.position_raw[0] - (287 << 26)) <= 8 and slid.position_raw[1] == -1 << 32
    assert slid.iterations == 2
    assert not clear.blocked and clear.position_raw == (-13 << 32, -4 << 32) and clear.fraction_raw == 1 << 32
    assert clear.fraction == 1.0 and clear.planes == []
    # Past max_batch (100) the moves go in several calls, answered alike.
    many = client.move_shapes(wid, [ac.shape_move(disk, (0, -5 + i / 16), (10, 0)) for i in range(150)])
    assert len(many.results) == 150 and all(r.blocked and abs(r.position_raw[0] - (287 << 26)) <= 8 for r in many.results)
    alone = [client.move_shapes(wid, [ac.shape_move(disk, (0, -5 + i / 16), (10, 0))]).results[0] for i in (0, 99, 100, 149)]
    assert alone == [many.results[i] for i in (0, 99, 100, 149)]
    with pytest.raises(ac.ArbiterError) as e:
        client.move_shapes(wid, [ac.shape_move(disk, (0, 0), (2 ** 28 + 1, 0))])
    assert e.value.code == grpc.StatusCode.OUT_OF_RANGE and e.value.field == "moves[0].translation"
    with pytest.raises(ac.ArbiterError) as e:
        client.move_shapes(wid, [ac.shape_move(disk, (0, 0), (1, 0))], skin=2)
    assert e.value.code == grpc.StatusCode.OUT_OF_RANGE and e.value.field == "skin"


def test_overlap_contacts_and_distance(client):
    wid = world_id()
    client.create_world(wid, bodies=[ac.body(7, "static", (0, 0), [ac.box(2, 1)]),
                                     ac.body(9, "static", (10, 0), [ac.circle(1)])])
    # A disk sunk 0.5 into the box's top: the way out is straight up.
    answer = client.overlap_contacts(wid, [ac.shape_query(ac.circle(1), (0, 1.5))])
    (contact,), = answer.results
    assert (contact.body_id, contact.shape_index) == (7, 0)
    assert contact.normal_raw == (0, -1 << 32) and contact.depth_raw == 1 << 31
    assert contact.push_out == (0.0, 0.5) and contact.points == [(0.0, 0.75)]
    # A point query has no contact: the error names it.
    with pytest.raises(ac.ArbiterError) as e:
        client.overlap_contacts(wid, [ac.point_query((0, 0))])
    assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT and e.value.field == "queries[0]"
    # Distance: nearest first, overlapping at 0 with the contact's depth.
    near = client.distance(wid, [ac.distance_query(ac.circle(1), (6, 0), max_distance=10, max_results=5),
                                 ac.distance_query(ac.circle(1), (0, 1.5), max_distance=0)]).results
    assert [(h.body_id, h.distance) for h in near[0]] == [(9, 2.0), (7, 3.0)]
    assert near[0][0].point_query == (7.0, 0.0) and near[0][0].point_body == (9.0, 0.0)
    assert near[0][0].normal_raw == (1 << 32, 0)
    (inside,) = near[1]
    assert inside.distance_raw == 0 and inside.depth == 0.5 and inside.normal == (0.0, -1.0)
    with pytest.raises(ac.ArbiterError) as e:
        client.distance(wid, [ac.distance_query(ac.circle(1), (0, 0), max_distance=-1)])
    assert e.value.code == grpc.StatusCode.OUT_OF_RANGE and e.value.field == "queries[0].max_distance"
    with pytest.raises(ac.ArbiterError) as e:
        client.distance(wid, [ac.distance_query(ac.circle(1), (0, 0), max_results=257)])
    assert e.value.code == grpc.StatusCode.OUT_OF_RANGE and e.value.field == "queries[0].max_results"


def test_query_stream_answers_in_order(client):
    wid = world_id()
    small_world(client, wid)
    requests = [pb.CastRaysRequest(world_id=wid, mode=pb.CAST_MODE_CLOSEST, request_tag=i,
                                   rays=[ac.ray((x, 20), (0, -40))]) for i, x in enumerate([0, 5, 30])]
    replies = list(client.query_stream(requests))
    assert [r.request_tag for r in replies] == [0, 1, 2]
    assert [r.results[0].hits[0].body_id if r.results[0].hit else None for r in replies] == [2, 3, 1]


def test_export_journal(journaled_server):
    with ac.Client(journaled_server.address) as client:
        wid = world_id()
        small_world(client, wid)
        client.step(wid, ticks=3)
        data = client.export_journal(wid)
        assert len(data) > 100
    with ac.Client(journaled_server.address) as other, pytest.raises(ac.ArbiterError) as e:
        other.export_journal("no-such-world")
    assert e.value.code == grpc.StatusCode.NOT_FOUND


def test_errors_carry_code_field_and_reason(client):
    wid = world_id()
    small_world(client, wid)
    with pytest.raises(ac.ArbiterError) as e:
        client.add_bodies(wid, [ac.body(2, "static", (0, 0), [ac.circle(1)])])
    assert e.value.code == grpc.StatusCode.ALREADY_EXISTS and e.value.field
    with pytest.raises(ac.ArbiterError) as e:
        client.cast_rays(wid, [pb.Ray(origin=geo.Vec2(x=1 << 62), translation=geo.Vec2(y=1))])
    assert e.value.code == grpc.StatusCode.OUT_OF_RANGE and e.value.field.startswith("rays[0]")
    with pytest.raises(ac.ArbiterValueError) as e:  # refused before sending
        ac.circle(float("nan"))
    assert e.value.field == "circle.radius"
    with pytest.raises(ac.ArbiterValueError):
        client.cast_rays(wid, [((0, 0), (1, 0))], mode="nearest")


def test_chains_are_one_sided_segments(client):
    wid = world_id()
    floor = [(10, 0), (5, 1), (0, 0), (-5, 1), (-10, 0)]  # right to left: faces up
    client.create_world(wid, bodies=[ac.body(1, "static", (0, 0), [ac.circle(0.5, (0, 5)), ac.chain(floor)])])
    assert client.describe_world(wid, include_bodies=True).bodies[0].shape_count == 5  # circle + 4 segments
    down, up = client.cast_rays(wid, [((-2.5, 3), (0, -6)), ((-2.5, -3), (0, 6))]).results
    assert down.hit and down.hits[0].shape_index == 3 and not up.hit
    with pytest.raises(ac.ArbiterError) as e:
        client.add_bodies(wid, [ac.body(2, "dynamic", (0, 9), [ac.chain(floor, loop=True)])])
    assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT and "a chain has no mass" in e.value.reason
