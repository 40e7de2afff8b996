"""Client: one method per arbiter.v1 RPC (unary calls as methods, streams as
iterators), world units in, floats and raw ints out, ArbiterError on failure.

Batches longer than the server's max_batch (from GetServerInfo, asked once
at connect) are split into several calls: for queries that is invisible
(but the parts may answer at different ticks if someone steps meanwhile:
Answer.tick is the first part's); for AddBodies, RemoveBodies and
UpdateBodies each part is all-or-nothing, the whole is not.
"""

import grpc

from arbiter.v1 import arbiter_pb2 as pb
from arbiter.v1 import arbiter_pb2_grpc as pb_grpc

from . import messages as m
from .errors import ArbiterError

DEFAULT_MESSAGE_BYTES = 64 << 20
# The call metadata naming a call's world (a fleet's proxy routes by it; the
# server refuses a call whose metadata and world_id disagree).
WORLD_METADATA_KEY = "x-arbiter-world"


def _chunks(items, size):
    items = list(items)
    return [items[i:i + size] for i in range(0, len(items), size)] or [[]]


class Client:
    """A connection to an arbiter-server at `target` ("host:port").

    `token`: sent as "authorization: Bearer <token>". `credentials`: a
    grpc.ssl_channel_credentials for TLS servers; None: plaintext.
    `timeout`: seconds per unary call. The channel accepts replies up to
    the server's max_message_bytes."""

    def __init__(self, target, token=None, credentials=None, timeout=60.0):
        self._target = target
        self._credentials = credentials
        self._metadata = (("authorization", f"Bearer {token}"),) if token else ()
        self._timeout = timeout
        self._open(DEFAULT_MESSAGE_BYTES)
        self.info = self.get_server_info()
        limit = self.info.limits.max_message_bytes
        if limit > DEFAULT_MESSAGE_BYTES:
            self._channel.close()
            self._open(min(limit, 2**31 - 1))

    def _open(self, max_bytes):
        options = [("grpc.max_receive_message_length", max_bytes), ("grpc.max_send_message_length", max_bytes)]
        if self._credentials is None:
            self._channel = grpc.insecure_channel(self._target, options=options)
        else:
            self._channel = grpc.secure_channel(self._target, self._credentials, options=options)
        self._stub = pb_grpc.ArbiterStub(self._channel)

    def close(self):
        self._channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def target(self):
        """The address connected to ("host:port")."""
        return self._target

    @property
    def max_batch(self):
        return max(1, self.info.limits.max_batch)

    def _routed(self, world_id):
        """The call metadata for a call on `world_id`: the token and
        x-arbiter-world, by which a fleet's proxy routes the call to the
        world's owner (docs/fleet.md)."""
        return self._metadata + ((WORLD_METADATA_KEY, world_id),) if world_id else self._metadata

    def _call(self, method, request):
        world_id = getattr(request, "world_id", "")
        try:
            return getattr(self._stub, method)(request, timeout=self._timeout, metadata=self._routed(world_id))
        except grpc.RpcError as e:
            raise ArbiterError.from_rpc(e) from None

    def _stream(self, responses):
        try:
            yield from responses
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.CANCELLED:
                raise ArbiterError.from_rpc(e) from None

    # ---- The server ------------------------------------------------------------------------
    def get_server_info(self):
        """GetServerInfoResponse: version, limits, features."""
        return self._call("GetServerInfo", pb.GetServerInfoRequest())

    # ---- Worlds ----------------------------------------------------------------------------
    def create_world(self, world_id, gravity=(0, 0), tick_hz=0, bodies=(), scene="", max_bodies=0,
                     history_ticks=0, allow_sleep=None, sub_steps=None, contact_hertz=None):
        """Creates a world; bodies beyond one batch are added afterwards. The WorldInfo.

        allow_sleep: True lets resting islands sleep (BodyState.asleep);
        None leaves it to the scene (else off). sub_steps (1..32) and
        contact_hertz (1..10000, used up to tick_hz * sub_steps / 4) stiffen
        the contact solver; None leaves each to the scene (else 4 and 30)."""
        parts = _chunks(bodies, self.max_batch)
        reply = self._call("CreateWorld", pb.CreateWorldRequest(
            world_id=world_id, gravity=m.vec2(gravity, "gravity"), tick_hz=tick_hz, scene=scene,
            max_bodies=max_bodies, history_ticks=history_ticks, bodies=parts[0], allow_sleep=allow_sleep,
            sub_steps=sub_steps, contact_hertz=contact_hertz))
        for part in parts[1:]:
            self.add_bodies(world_id, part)
        return reply.world if len(parts) == 1 else self.describe_world(world_id).world

    def delete_world(self, world_id):
        """The tick the world had."""
        return self._call("DeleteWorld", pb.DeleteWorldRequest(world_id=world_id)).tick

    def list_worlds(self):
        return list(self._call("ListWorlds", pb.ListWorldsRequest()).worlds)

    def describe_world(self, world_id, include_bodies=False):
        return self._call("DescribeWorld", pb.DescribeWorldRequest(world_id=world_id, include_bodies=include_bodies))

    # ---- Bodies ----------------------------------------------------------------------------
    # The writes (add_bodies, remove_bodies, update_bodies, step, restore)
    # take `expected_tick` and `expected_epoch` (arbiter.proto "Safe
    # retries"): when set and the world is at another tick or epoch
    # (WorldInfo.epoch, its ownership generation), the call changes nothing
    # and fails with FAILED_PRECONDITION naming the field. A writer that
    # names the epoch it learned from the world's owner never has a change
    # acknowledged by a stale copy of the world.
    def add_bodies(self, world_id, bodies, expected_tick=None, expected_epoch=None):
        """The body count after the last part."""
        for part in _chunks(bodies, self.max_batch):
            reply = self._call("AddBodies", pb.AddBodiesRequest(world_id=world_id, bodies=part,
                                                                expected_tick=expected_tick,
                                                                expected_epoch=expected_epoch))
        return reply.body_count

    def remove_bodies(self, world_id, body_ids, expected_tick=None, expected_epoch=None):
        for part in _chunks(body_ids, self.max_batch):
            reply = self._call("RemoveBodies", pb.RemoveBodiesRequest(world_id=world_id, body_ids=part,
                                                                      expected_tick=expected_tick,
                                                                      expected_epoch=expected_epoch))
        return reply.body_count

    def update_bodies(self, world_id, updates, expected_tick=None, expected_epoch=None):
        """`updates`: pb.BodyUpdate messages (see set_transform / set_velocity)."""
        for part in _chunks(updates, self.max_batch):
            reply = self._call("UpdateBodies", pb.UpdateBodiesRequest(world_id=world_id, updates=part,
                                                                      expected_tick=expected_tick,
                                                                      expected_epoch=expected_epoch))
        return reply.tick

    @staticmethod
    def set_transform(body_id, position, rotation=None):
        return pb.BodyUpdate(body_id=body_id, transform=m.transform(position, rotation))

    @staticmethod
    def set_velocity(body_id, linear, angular=0):
        return pb.BodyUpdate(body_id=body_id, velocity=pb.Velocity(
            linear=m.vec2(linear, "velocity.linear"), angular=m.to_raw(angular, "velocity.angular")))

    # ---- Queries ---------------------------------------------------------------------------
    def _split_query(self, method, items, make, results_of):
        tick = fraction = None
        results = []
        for part in _chunks(items, self.max_batch):
            reply = self._call(method, make(part))
            if tick is None:
                tick, fraction = reply.tick, reply.tick_fraction
            results.extend(results_of(reply.results))
        return m.Answer(tick, fraction, results)

    def cast_rays(self, world_id, rays, mode="closest", filter=None, at=None):
        """`rays`: (origin, translation) pairs in units, or pb.Ray. An Answer of CastResults."""
        rays = [m.ray(*r) if isinstance(r, tuple) else m.ray(r, None) for r in rays]
        mode, at = m.cast_mode(mode), m.past_tick(at)
        return self._split_query("CastRays", rays, lambda part: pb.CastRaysRequest(
            world_id=world_id, mode=mode, filter=filter, rays=part, at=at), m.cast_results)

    def overlap(self, world_id, queries, filter=None, at=None):
        """`queries`: point_query / aabb_query / shape_query. An Answer of [(body id, shape index)] lists."""
        at = m.past_tick(at)
        return self._split_query("Overlap", queries, lambda part: pb.OverlapRequest(
            world_id=world_id, filter=filter, queries=part, at=at), m.overlap_results)

    def overlap_contacts(self, world_id, queries, filter=None, at=None):
        """Overlap with want_contacts: `queries` are shape_query(...) messages.
        An Answer of [Contact] lists (normal, depth, points, push_out)."""
        at = m.past_tick(at)
        return self._split_query("Overlap", queries, lambda part: pb.OverlapRequest(
            world_id=world_id, filter=filter, queries=part, at=at, want_contacts=True), m.contact_results)

    def distance(self, world_id, queries, filter=None, at=None):
        """`queries`: distance_query(...) messages. An Answer of [Nearby]
        lists, nearest first, each body once."""
        at = m.past_tick(at)
        return self._split_query("Distance", queries, lambda part: pb.DistanceRequest(
            world_id=world_id, filter=filter, queries=part, at=at), m.distance_results)

    def cast_shapes(self, world_id, casts, mode="closest", filter=None, at=None):
        """`casts`: shape_cast(...) messages. An Answer of CastResults."""
        mode, at = m.cast_mode(mode), m.past_tick(at)
        return self._split_query("CastShapes", casts, lambda part: pb.CastShapesRequest(
            world_id=world_id, mode=mode, filter=filter, casts=part, at=at), m.cast_results)

    def validate_hit(self, world_id, shooter_body_id, target_body_id, origin, translation, at=None, filter=None):
        reply = self._call("ValidateHit", pb.ValidateHitRequest(
            world_id=world_id, shooter_body_id=shooter_body_id, target_body_id=target_body_id,
            ray=m.ray(origin, translation), at=m.past_tick(at), filter=filter))
        return m.Verdict(reply.tick, m.VERDICTS.get(reply.verdict, "unspecified"),
                         m.Hit.of(reply.first_hit) if reply.HasField("first_hit") else None,
                         m.Hit.of(reply.target_hit) if reply.HasField("target_hit") else None)

    def move_shapes(self, world_id, moves, skin=None, max_iterations=0, filter=None, at=None):
        """Move-and-slide as a query (MoveShapes): `moves` are shape_move(...)
        messages; `skin` in units (None: the server's 1/64), `max_iterations`
        0: the server's 4. An Answer of MoveOutcomes, one per move in order;
        nothing in the world moves."""
        skin = 0 if skin is None else m.to_raw(skin, "skin")
        at = m.past_tick(at)
        return self._split_query("MoveShapes", moves, lambda part: pb.MoveShapesRequest(
            world_id=world_id, moves=part, filter=filter, skin=skin, max_iterations=max_iterations, at=at),
            m.move_outcomes)

    def validate_move(self, world_id, claims, max_speed, tolerance=0, skin=None, max_iterations=0, filter=None):
        """Judges claimed paths (ValidateMove). `claims`: move_claim(...)
        messages or (body_id, tick, positions) tuples, positions in units.
        `max_speed` in units per second, `tolerance` and `skin` in units
        (skin None: the server's 1/64), `max_iterations` 0: the server's 4.
        A MoveAnswer of MoveJudgements, one per claim in order.

        The server bounds both the claims and all their positions together
        by max_batch: claims are sent in as many calls as that takes (a
        single claim longer than max_batch is sent alone and refused)."""
        claims = [c if isinstance(c, pb.MoveClaim) else m.move_claim(*c, field=f"claims[{i}]")
                  for i, c in enumerate(claims)]
        request = pb.ValidateMoveRequest(world_id=world_id, max_speed=m.to_raw(max_speed, "max_speed"),
                                         tolerance=m.to_raw(tolerance, "tolerance"),
                                         skin=0 if skin is None else m.to_raw(skin, "skin"),
                                         max_iterations=max_iterations, filter=filter)
        tick, judgements = self._split_judged("ValidateMove", request, request.claims, claims,
                                              lambda c: len(c.positions), m.MoveJudgement.of)
        return m.MoveAnswer(tick, judgements)

    def validate_shots(self, world_id, shots, tick_tolerance=0, point_tolerance=0, max_rewind_ticks=None,
                       filter=None):
        """Judges projectiles through the history (ValidateShots). `shots`:
        shot(...) messages. `point_tolerance` in units; `max_rewind_ticks`
        None: no cap of the caller's own. A ShotAnswer of ShotJudgements, one
        per shot in order; a shot sent again gets its first judgement
        (duplicate=True).

        The server bounds the shots and their flight_ticks together by
        max_batch: shots are sent in as many calls as that takes."""
        request = pb.ValidateShotsRequest(world_id=world_id, tick_tolerance=tick_tolerance,
                                          point_tolerance=m.to_raw(point_tolerance, "point_tolerance"),
                                          filter=filter)
        if max_rewind_ticks is not None:
            request.max_rewind_ticks = max_rewind_ticks
        tick, judgements = self._split_judged("ValidateShots", request, request.shots, list(shots),
                                              lambda s: s.flight_ticks, m.ShotJudgement.of)
        return m.ShotAnswer(tick, judgements)

    def _split_judged(self, method, request, field, items, cost, of):
        """Sends `items` in `field` of `request` in as many calls as the
        server's max_batch takes, counting the items and cost(item) of each
        together; (the first reply's tick, every judgement in order)."""
        parts, part, spent = [], [], 0
        for item in items:
            if part and (len(part) == self.max_batch or spent + cost(item) > self.max_batch):
                parts.append(part)
                part, spent = [], 0
            part.append(item)
            spent += cost(item)
        parts.append(part)
        tick = None
        judgements = []
        for part in parts:
            del field[:]
            field.extend(part)
            reply = self._call(method, request)
            if tick is None:
                tick = reply.tick
            judgements.extend(of(j) for j in reply.judgements)
        return tick, judgements

    def query_stream(self, requests):
        """QueryStream: an iterator of CastRaysResponse, one per pb.CastRaysRequest, in order."""
        return self._stream(self._stub.QueryStream(iter(requests), metadata=self._metadata))

    # ---- Stepping and state ----------------------------------------------------------------
    def step(self, world_id, ticks=1, commands=(), omit_events=False, hash_every_tick=False, expected_tick=None,
             expected_epoch=None):
        """StepResponse (tick, state_hash, per-tick events)."""
        return self._call("Step", pb.StepRequest(world_id=world_id, ticks=ticks, commands=commands,
                                                 omit_events=omit_events, hash_every_tick=hash_every_tick,
                                                 expected_tick=expected_tick, expected_epoch=expected_epoch))

    def watch_events(self, world_id):
        """An iterator of TickEvents for every tick stepped from now on; ends
        when the world is deleted or the server stops (ArbiterError), or
        quietly when cancelled with .cancel() on the returned iterator."""
        return _Watch(self, self._stub.WatchEvents(pb.WatchEventsRequest(world_id=world_id),
                                                   metadata=self._routed(world_id)))

    def get_state_hash(self, world_id):
        """(tick, state hash)."""
        reply = self._call("GetStateHash", pb.GetStateHashRequest(world_id=world_id))
        return reply.tick, reply.state_hash

    def get_snapshot(self, world_id):
        return self._call("GetSnapshot", pb.GetSnapshotRequest(world_id=world_id))

    def restore(self, world_id, snapshot, expected_tick=None, expected_epoch=None):
        return self._call("Restore", pb.RestoreRequest(world_id=world_id, snapshot=snapshot,
                                                       expected_tick=expected_tick,
                                                       expected_epoch=expected_epoch)).world

    def report_hashes(self, world_id, first_tick, state_hashes):
        """In batches of max_batch; the first reply that is out of sync, else the last."""
        for i, part in enumerate(_chunks(state_hashes, self.max_batch)):
            reply = self._call("ReportHashes", pb.ReportHashesRequest(
                world_id=world_id, first_tick=first_tick + i * self.max_batch, state_hashes=part))
            if not reply.in_sync:
                break
        return reply

    def export_journal(self, world_id, from_tick=0, to_tick=0):
        """The export file's bytes (servers with a journal)."""
        chunks = self._stub.ExportJournal(pb.ExportJournalRequest(world_id=world_id, from_tick=from_tick,
                                                                  to_tick=to_tick), metadata=self._routed(world_id))
        return b"".join(c.data for c in self._stream(chunks))

    # ---- Moving a world (admin; arbiter.proto "Moving a world", fleet.migrate_world) ------
    def freeze_world(self, world_id, moving_to="", thaw=False):
        """FreezeWorld: from now on every write to the world is refused with
        UNAVAILABLE naming `moving_to` ("host:port", required unless thaw),
        reads go on; with thaw=True writes are accepted again. Idempotent.
        Journaled before it is answered (a restarted server comes back with
        the world frozen); a freeze or a thaw raises the world's epoch.
        The FreezeWorldResponse (tick, state_hash, history_ticks, frozen,
        epoch). To undo a move's freeze, fleet.thaw_world checks the
        destination first."""
        return self._call("FreezeWorld", pb.FreezeWorldRequest(world_id=world_id, destination=moving_to, thaw=thaw))

    def import_world(self, world_id, journal, expected_tick, expected_state_hash, expected_epoch=0):
        """ImportWorld: adds the world rebuilt from `journal` (export_journal's
        bytes from another instance), all or nothing, checked to replay to
        `expected_tick` with `expected_state_hash` and, unless
        `expected_epoch` is 0, to end frozen at that epoch (the freeze's;
        the world then serves here at it). FAILED_PRECONDITION otherwise.
        The ImportWorldResponse (world, records)."""
        return self._call("ImportWorld", pb.ImportWorldRequest(world_id=world_id, journal=journal,
                                                               expected_tick=expected_tick,
                                                               expected_state_hash=expected_state_hash,
                                                               expected_epoch=expected_epoch))


class _Watch:
    def __init__(self, client, call):
        self._call = call
        self._events = client._stream(call)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._events)

    def cancel(self):
        self._call.cancel()
