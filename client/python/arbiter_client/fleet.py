"""Working with a fleet of arbiter-server instances (docs/fleet.md).

- list_fleet_worlds: a fleet's proxy routes a call by its world
  (x-arbiter-world), and ListWorlds names no world, so through the proxy it
  reaches one instance and lists only that instance's worlds. A client that
  wants them all asks every instance of a known list and merges the
  answers.
- migrate_world: moves one world from one instance to another (FreezeWorld,
  ExportJournal, ImportWorld, DeleteWorld: arbiter.proto "Moving a world"),
  step by step as the C++ client's MigrateWorld (client/src/fleet_migrate.cc)
  and `arbiter migrate` do.
"""

import time
from collections import namedtuple
from dataclasses import dataclass

import grpc

from .client import Client
from .errors import ArbiterError

# `info`: the instance's WorldInfo for the world.
FleetWorld = namedtuple("FleetWorld", "world_id instance info")
# `worlds`: sorted by world id, then by the instance's place in the list
# given (a world shows twice only while it is being migrated).
# `unreachable`: (instance, ArbiterError) for each instance that did not
# answer; the others' worlds are listed all the same.
FleetListing = namedtuple("FleetListing", "worlds unreachable")


def list_fleet_worlds(instances, token=None, credentials=None, timeout=10.0):
    """ListWorlds on each of `instances` ("host:port" strings), merged."""
    found, unreachable = [], []
    for order, address in enumerate(instances):
        try:
            with Client(address, token=token, credentials=credentials, timeout=timeout) as client:
                worlds = client.list_worlds()
        except ArbiterError as error:
            unreachable.append((address, error))
            continue
        found.extend((w.world_id, order, FleetWorld(w.world_id, address, w)) for w in worlds)
    found.sort(key=lambda entry: entry[:2])
    return FleetListing([entry[2] for entry in found], unreachable)


@dataclass
class MigrationReport:
    """What one move did (the C++ client's MigrationReport; times in seconds)."""
    tick: int  # the tick the world was frozen at (and serves at on the destination)
    state_hash: int  # its state hash there
    records: int  # journal records replayed on the destination
    export_bytes: int
    # From the freeze on the source to the destination serving: the window in
    # which writes to the world were refused (UNAVAILABLE, retryable).
    write_refusal_seconds: float
    export_seconds: float  # ExportJournal on the source
    import_seconds: float  # ImportWorld on the destination
    # Set when the world serves on the destination but could not be deleted
    # on the source (which stays frozen, refusing writes): what to run.
    warning: str = ""


def _message(error):
    """The server's message of an ArbiterError, field included."""
    return f"{error.field}: {error.reason}" if error.field else error.reason


def _with_context(error, what):
    return ArbiterError(error.code, None, f"{what}: {_message(error)}")


def _check_destination_free(to, world_id):
    """Refuses a move onto an instance that already holds the world, before
    anything changes."""
    try:
        to.describe_world(world_id)
    except ArbiterError as there:
        # A tombstone (the world moved away from there before) is no obstacle.
        moved_away = there.code == grpc.StatusCode.UNAVAILABLE and "' moved to " in _message(there)
        if there.code != grpc.StatusCode.NOT_FOUND and not moved_away:
            raise _with_context(there, f"--to: asking the destination about world '{world_id}'") from None
        return
    raise ArbiterError(grpc.StatusCode.ALREADY_EXISTS, None,
                       f"--to: the destination already holds world '{world_id}'")


def _thaw(source, world_id, why):
    """After a failed export or import: the world must serve on the source
    again. The error to raise, saying whether that worked."""
    try:
        source.freeze_world(world_id, thaw=True)
    except ArbiterError as failed:
        return ArbiterError(why.code, None, f"{why.reason}; and thawing the source failed too ({_message(failed)}): "
                                            f"world '{world_id}' is frozen there, run `arbiter migrate --world "
                                            f"{world_id} --from SOURCE --thaw`")
    return ArbiterError(why.code, None,
                        f"{why.reason} (the move was undone: world '{world_id}' serves on the source as before)")


def _connect(target, side, token, credentials, timeout):
    """(client, whether we opened it) for a Client or a "host:port"."""
    if isinstance(target, Client):
        return target, False
    try:
        return Client(target, token=token, credentials=credentials, timeout=timeout), True
    except ArbiterError as error:
        raise _with_context(error, f"{side}: connecting to {target}") from None


def _migrate(source, to, world_id, to_address):
    _check_destination_free(to, world_id)
    frozen_at = time.monotonic()
    try:
        frozen = source.freeze_world(world_id, moving_to=to_address)
    except ArbiterError as error:
        raise _with_context(error, f"--from: freezing world '{world_id}'") from None

    # From the snapshot the history window starts at, as recovery reads it.
    export_started = time.monotonic()
    try:
        journal = source.export_journal(world_id, from_tick=max(0, frozen.tick - frozen.history_ticks))
    except ArbiterError as error:
        raise _thaw(source, world_id, _with_context(error, "--from: exporting the journal")) from None
    export_seconds = time.monotonic() - export_started

    import_started = time.monotonic()
    try:
        imported = to.import_world(world_id, journal, expected_tick=frozen.tick,
                                   expected_state_hash=frozen.state_hash)
    except ArbiterError as error:
        raise _thaw(source, world_id, _with_context(error, "--to: importing the world")) from None
    now = time.monotonic()
    report = MigrationReport(tick=frozen.tick, state_hash=frozen.state_hash, records=imported.records,
                             export_bytes=len(journal), write_refusal_seconds=now - frozen_at,
                             export_seconds=export_seconds, import_seconds=now - import_started)
    try:
        source.delete_world(world_id)
    except ArbiterError as error:
        # Still one writer: the destination. The source stays frozen.
        report.warning = (f"world '{world_id}' serves on the destination, but deleting it on the source failed "
                          f"({_message(error)}); it stays frozen there: delete it with "
                          f"`arbiter delete --server SOURCE --world {world_id} --yes`")
    return report


def migrate_world(source, destination, world_id, destination_address=None, token=None, credentials=None,
                  timeout=60.0):
    """Moves `world_id` from `source` to `destination` (admin on both), each a
    Client or a "host:port" (then connected with `token`, `credentials` and
    `timeout`, and closed afterwards). `destination_address` is named in the
    source's refusals and tombstone (default: the destination's address).
    A MigrationReport; ArbiterError on failure:
    - before anything changes: ALREADY_EXISTS when the destination holds
      the world already, the source's error (e.g. NOT_FOUND) when it cannot
      freeze it, the error when either instance does not answer;
    - a failure after the freeze (the export, or the destination refusing
      the import: --max_import_bytes, its world limit, a hash mismatch)
      thaws the source again, so the world keeps serving there, and the
      message says "the move was undone"; if even the thaw fails it says
      how to thaw it by hand (`arbiter migrate --world W --from A --thaw`).
    Same steps and checks as the C++ client's MigrateWorld."""
    opened = []
    try:
        source, mine = _connect(source, "--from", token, credentials, timeout)
        if mine:
            opened.append(source)
        to, mine = _connect(destination, "--to", token, credentials, timeout)
        if mine:
            opened.append(to)
        return _migrate(source, to, world_id, destination_address or to.target)
    finally:
        for client in opened:
            client.close()
