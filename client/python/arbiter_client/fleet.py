"""Working with a fleet of arbiter-server instances (docs/fleet.md).

- list_fleet_worlds: a fleet's proxy routes a call by its world
  (x-arbiter-world), and ListWorlds names no world, so through the proxy it
  reaches one instance and lists only that instance's worlds. A client that
  wants them all asks every instance of a known list and merges the
  answers.
- migrate_world: moves one world from one instance to another (FreezeWorld,
  ExportJournal, ImportWorld, DeleteWorld: arbiter.proto "Moving a world"),
  step by step as the C++ client's MigrateWorld (client/src/fleet_migrate.cc)
  and `arbiter migrate` do; resume_migration finishes a move that was cut
  short, and thaw_world undoes one that did not happen (docs/fleet.md
  "Durable moves"). A stage that was refused undoes what came before it; a
  stage whose outcome is unknown asks the destination (the world at the
  freeze's epoch there means the move happened) and otherwise leaves the
  source frozen for resume_migration: thawing it then could make two live
  copies.
"""

import time
from collections import namedtuple
from contextlib import ExitStack, contextmanager
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
    epoch: int  # the epoch it was frozen at (and serves at on the destination)
    # resume_migration only: the destination held the world already, so only
    # the source's copy had to go.
    resumed_after_import: bool = False
    records: int = 0  # journal records replayed on the destination
    export_bytes: int = 0
    # From the freeze on the source to the destination serving: the window in
    # which writes to the world were refused (UNAVAILABLE, retryable).
    # migrate_world only.
    write_refusal_seconds: float = 0.0
    export_seconds: float = 0.0  # ExportJournal on the source
    import_seconds: float = 0.0  # ImportWorld on the destination
    # Set when the world serves on the destination but could not be deleted
    # on the source (which stays frozen, refusing writes): what to run.
    warning: str = ""


# Codes of a call that certainly changed nothing on the server: it was
# refused (validation, limits, roles). Anything else (the server crashed,
# the reply was lost, the deadline passed) may have happened.
_REFUSED = frozenset({
    grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.ALREADY_EXISTS, grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.NOT_FOUND, grpc.StatusCode.OUT_OF_RANGE, grpc.StatusCode.UNIMPLEMENTED,
})


def _message(error):
    """The server's message of an ArbiterError, field included."""
    return f"{error.field}: {error.reason}" if error.field else error.reason


def _with_context(error, what):
    return ArbiterError(error.code, None, f"{what}: {_message(error)}")


def _resume_hint(world_id):
    return (f"world '{world_id}' stays frozen on the source; run `arbiter migrate --world {world_id} "
            f"--from SOURCE --to DESTINATION --resume` (or fleet.resume_migration) once both answer")


def _holding(client, world_id, context):
    """What `client`'s instance holds of the world: its WorldInfo, or None
    when it holds none (also for a tombstone: the world moved away from
    there before). Any other failure is raised, after `context`."""
    try:
        return client.describe_world(world_id).world
    except ArbiterError as error:
        moved_away = error.code == grpc.StatusCode.UNAVAILABLE and "' moved to " in _message(error)
        if error.code == grpc.StatusCode.NOT_FOUND or moved_away:
            return None
        raise _with_context(error, context) from None


def _on_source(source, world_id):
    """The source's WorldInfo of the world; NOT_FOUND when it holds none."""
    held = _holding(source, world_id, f"--from: asking the source about world '{world_id}'")
    if held is None:
        raise ArbiterError(grpc.StatusCode.NOT_FOUND, None,
                           f"--from: the source does not hold world '{world_id}' (none, or it moved away)")
    return held


def _check_destination_free(to, world_id):
    """Refuses a move onto an instance that already holds the world, before
    anything changes."""
    if _holding(to, world_id, f"--to: asking the destination about world '{world_id}'") is not None:
        raise ArbiterError(grpc.StatusCode.ALREADY_EXISTS, None,
                           f"--to: the destination already holds world '{world_id}'")


def _thaw(source, world_id, why):
    """After an export that failed or an import that was refused: the world
    must serve on the source again. The error to raise, saying whether that
    worked."""
    try:
        source.freeze_world(world_id, thaw=True)
    except ArbiterError as failed:
        return ArbiterError(why.code, None, f"{why.reason}; and thawing the source failed too ({_message(failed)}): "
                                            f"{_resume_hint(world_id)}, or thaw it with `arbiter migrate --world "
                                            f"{world_id} --from SOURCE --to DESTINATION --thaw`")
    return ArbiterError(why.code, None,
                        f"{why.reason} (the move was undone: world '{world_id}' serves on the source as before)")


def _after_failed_import(source, to, world_id, epoch, failed):
    """An import that failed: returns when the destination serves the world
    at the freeze's epoch (it arrived; the reply was lost) and the move goes
    on. Otherwise raises: the source thawed when the import was refused,
    left frozen when its outcome is unknown."""
    why = _with_context(failed, "--to: importing the world")
    try:
        there = _holding(to, world_id, "--to")
    except ArbiterError:
        there = None
    if there is not None and there.epoch == epoch and not there.moving_to:
        return
    if failed.code in _REFUSED:
        raise _thaw(source, world_id, why) from None
    raise ArbiterError(why.code, None, f"{why.reason}; whether the destination took the world is not known, so "
                                       f"{_resume_hint(world_id)}") from None


def _transfer(source, to, world_id, frozen, report):
    """Stages 2 and 3: the source's export from its history window's
    snapshot, replayed on the destination, which must end frozen at
    `frozen`'s epoch."""
    export_started = time.monotonic()
    try:
        journal = source.export_journal(world_id, from_tick=max(0, frozen.tick - frozen.history_ticks))
    except ArbiterError as error:
        # Nothing changed on the destination yet: undoing the freeze is safe.
        raise _thaw(source, world_id, _with_context(error, "--from: exporting the journal")) from None
    report.export_seconds = time.monotonic() - export_started
    report.export_bytes = len(journal)

    import_started = time.monotonic()
    try:
        imported = to.import_world(world_id, journal, expected_tick=frozen.tick,
                                   expected_state_hash=frozen.state_hash, expected_epoch=frozen.epoch)
    except ArbiterError as error:
        _after_failed_import(source, to, world_id, frozen.epoch, error)
    else:
        report.records = imported.records
    report.import_seconds = time.monotonic() - import_started


def _finish(source, world_id, report):
    """Stage 4: the source's copy goes, leaving its tombstone."""
    try:
        source.delete_world(world_id)
    except ArbiterError as error:
        # Still one writer: the destination. The source stays frozen.
        report.warning = (f"world '{world_id}' serves on the destination, but deleting it on the source failed "
                          f"({_message(error)}); it stays frozen there: finish with `arbiter migrate --world "
                          f"{world_id} --from SOURCE --to DESTINATION --resume` (or fleet.resume_migration)")


def _report(frozen):
    return MigrationReport(tick=frozen.tick, state_hash=frozen.state_hash, epoch=frozen.epoch)


def _migrate(source, to, world_id, to_address):
    _check_destination_free(to, world_id)
    frozen_at = time.monotonic()
    try:
        frozen = source.freeze_world(world_id, moving_to=to_address)
    except ArbiterError as error:
        raise _with_context(error, f"--from: freezing world '{world_id}'") from None
    report = _report(frozen)
    _transfer(source, to, world_id, frozen, report)
    report.write_refusal_seconds = time.monotonic() - frozen_at
    _finish(source, world_id, report)
    return report


def _resume(source, to, world_id, to_address):
    held = _on_source(source, world_id)
    if not held.moving_to:
        raise ArbiterError(grpc.StatusCode.FAILED_PRECONDITION, None,
                           f"--from: world '{world_id}' is not frozen there: no move to resume (it serves on the "
                           f"source)")
    if held.moving_to != to_address:
        raise ArbiterError(grpc.StatusCode.FAILED_PRECONDITION, None,
                           f"--to: world '{world_id}' is moving to {held.moving_to}, not {to_address}")
    # Idempotent re-freeze: the tick, hash and history window it froze at.
    try:
        frozen = source.freeze_world(world_id, moving_to=to_address)
    except ArbiterError as error:
        raise _with_context(error, f"--from: reading the freeze of world '{world_id}'") from None
    report = _report(frozen)
    there = _holding(to, world_id, f"--to: asking the destination about world '{world_id}'")
    if there is None:
        _transfer(source, to, world_id, frozen, report)
    elif there.epoch != frozen.epoch:
        raise ArbiterError(grpc.StatusCode.FAILED_PRECONDITION, None,
                           f"--to: the destination holds world '{world_id}' at epoch {there.epoch}, not the epoch "
                           f"{frozen.epoch} it was frozen at here: two copies; keep one by hand")
    else:
        report.resumed_after_import = True
    _finish(source, world_id, report)
    return report


def _thaw_checked(source, to, world_id):
    if to is not None:
        held = _on_source(source, world_id)
        there = _holding(to, world_id, f"--to: asking the destination about world '{world_id}' (thawing is safe "
                                       f"only once it is known not to hold it)")
        if there is not None and held.moving_to and there.epoch == held.epoch:
            raise ArbiterError(grpc.StatusCode.FAILED_PRECONDITION, None,
                               f"--to: the destination serves world '{world_id}' at epoch {there.epoch}, the one "
                               f"it was frozen at: the move happened; finish it with --resume (resume_migration)")
    return source.freeze_world(world_id, thaw=True)


def _connect(target, side, opened, token, credentials, timeout):
    """A Client for a Client (as is), a "host:port" (connected, and closed
    with `opened`) or None (as is)."""
    if target is None or isinstance(target, Client):
        return target
    try:
        return opened.enter_context(Client(target, token=token, credentials=credentials, timeout=timeout))
    except ArbiterError as error:
        raise _with_context(error, f"{side}: connecting to {target}") from None


@contextmanager
def _sides(source, destination, token, credentials, timeout):
    """(source, destination) as Clients, those connected here closed after."""
    with ExitStack() as opened:
        yield (_connect(source, "--from", opened, token, credentials, timeout),
               _connect(destination, "--to", opened, token, credentials, timeout))


def migrate_world(source, destination, world_id, destination_address=None, token=None, credentials=None,
                  timeout=60.0):
    """Moves `world_id` from `source` to `destination` (admin on both), each a
    Client or a "host:port" (then connected with `token`, `credentials` and
    `timeout`, and closed afterwards). `destination_address` is named in the
    source's refusals and tombstone (default: the destination's address).
    A MigrationReport (with the epoch the world was frozen at and now
    serves at on the destination); ArbiterError on failure:
    - before anything changes: ALREADY_EXISTS when the destination holds
      the world already, the source's error (e.g. NOT_FOUND) when it cannot
      freeze it, the error when either instance does not answer;
    - after the freeze (durable on the source, at a new epoch E): an export
      that fails, or an import the destination refused (INVALID_ARGUMENT,
      FAILED_PRECONDITION, RESOURCE_EXHAUSTED, ALREADY_EXISTS,
      PERMISSION_DENIED, UNAUTHENTICATED, NOT_FOUND, OUT_OF_RANGE,
      UNIMPLEMENTED: nothing changed there) thaws the source again, so the
      world keeps serving there, and the message says "the move was
      undone"; if even the thaw fails it says how to finish or undo the
      move by hand;
    - an import whose outcome is unknown (UNAVAILABLE, DEADLINE_EXCEEDED,
      INTERNAL, ...) asks the destination: the world live there at epoch E
      means it arrived, and the move goes on; otherwise the source stays
      frozen (refusing writes, never serving twice) and the error names
      `--resume`: run resume_migration once both instances answer.
    If the source's copy cannot be deleted at the end the report's warning
    says so (the source stays frozen; resume_migration deletes it).
    Same steps and checks as the C++ client's MigrateWorld."""
    with _sides(source, destination, token, credentials, timeout) as (source, to):
        return _migrate(source, to, world_id, destination_address or to.target)


def resume_migration(source, destination, world_id, destination_address=None, token=None, credentials=None,
                     timeout=60.0):
    """Finishes a move cut short (a crash of either instance or of the
    client after the freeze); arguments as migrate_world's. The source must
    hold the world frozen, moving to `destination_address`
    (FAILED_PRECONDITION otherwise). If the destination holds it at the
    freeze's epoch only the source's copy goes (the report's
    resumed_after_import); if it does not hold it, the export and import
    run again first, as in migrate_world; at another epoch nothing changes
    (FAILED_PRECONDITION: two copies, keep one by hand). A MigrationReport.
    The C++ client's ResumeMigration."""
    with _sides(source, destination, token, credentials, timeout) as (source, to):
        return _resume(source, to, world_id, destination_address or to.target)


def thaw_world(source, world_id, destination=None, token=None, credentials=None, timeout=60.0):
    """Undoes a move's freeze on `source` (FreezeWorld with thaw), so the
    world serves there again; each side a Client or a "host:port" as in
    migrate_world. With `destination`, first checks that it does not serve
    the world at the epoch frozen on the source (FAILED_PRECONDITION: the
    move happened, resume it instead) and that it answers at all; without,
    thaws without asking (the caller's word that the destination does not
    hold the world). The FreezeWorldResponse (frozen False, the new epoch).
    The C++ client's ThawWorld."""
    with _sides(source, destination, token, credentials, timeout) as (source, to):
        return _thaw_checked(source, to, world_id)
