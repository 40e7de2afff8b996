"""Moving a world between two real arbiter-server processes, each with its
own journal (freeze_world, import_world, fleet.migrate_world; the C++ side
is tests/server/migration_test.cc): the move keeps the tick, the state hash
and the history (past-tick answers); the source refuses writes while frozen
and answers "moved to" afterwards; every failed move leaves the world
serving (thawed) on the source; only admins may freeze or import. Durable
moves (docs/fleet.md "Durable moves"): a source restarted after the
destination's import comes back frozen, thaw_world refuses to thaw it and
resume_migration finishes the move; an import whose reply was lost goes
on, one that never arrived leaves the source frozen for resume_migration
or thaw_world; a write naming a stale epoch is refused."""

import hashlib
import socket
import time

import grpc
import pytest

import arbiter_client as ac
from conftest import start_server

RAYS = [((-12 + 3 * i, 30), (0.25 * i, -40)) for i in range(9)]


@pytest.fixture
def journaled(tmp_path):
    """start(*flags): a server with its own journal, stopped after the test."""
    started = []

    def start(*flags, data_dir=None):
        """`data_dir`: another server's, stopped, to restart it on its journal."""
        data_dir = data_dir or tmp_path / f"journal-{len(started)}"
        s = start_server(f"--data_dir={data_dir}", "--journal_sync=off", "--snapshot_every_ticks=16", *flags)
        s.data_dir = data_dir
        started.append(s)
        return s

    yield start
    for s in started:
        s.stop()


def make_world(client, world_id, ticks=60):
    """A falling pile on a floor, stepped `ticks` ticks with a change midway."""
    client.create_world(world_id, gravity=(0, -10), history_ticks=40, bodies=[
        ac.body(1, "static", (0, -1), [ac.box(20, 1)]),
        *[ac.body(2 + i, "dynamic", (-8 + 2 * i, 4 + i), [ac.circle(0.5 + 0.1 * i)]) for i in range(8)],
    ])
    client.step(world_id, ticks=ticks // 2)
    client.update_bodies(world_id, [client.set_velocity(3, (4, 6))])
    client.step(world_id, ticks=ticks - ticks // 2)
    return client.get_state_hash(world_id)


def dead_address():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def test_migrate_keeps_tick_hash_and_history_and_the_source_says_where_it_went(journaled):
    a, b = journaled(), journaled()
    with ac.Client(a.address) as source, ac.Client(b.address) as destination:
        before = make_world(source, "match")
        past = {t: source.cast_rays("match", RAYS, mode="all", at=t) for t in range(before[0] - 39, before[0] + 1, 3)}
        assert any(r.hit for answer in past.values() for r in answer.results)

        report = ac.migrate_world(source, destination, "match")

        assert (report.tick, report.state_hash) == before
        assert report.warning == ""
        assert report.records > 0 and report.export_bytes > 0
        assert 0 < report.import_seconds <= report.write_refusal_seconds
        assert 0 < report.export_seconds <= report.write_refusal_seconds
        assert destination.get_state_hash("match") == before
        for tick, answer in past.items():
            assert destination.cast_rays("match", RAYS, mode="all", at=tick) == answer, tick
        # The source keeps a tombstone: reads and writes get the retryable "moved to".
        for call in (lambda: source.step("match"), lambda: source.get_state_hash("match")):
            with pytest.raises(ac.ArbiterError) as gone:
                call()
            assert gone.value.code == grpc.StatusCode.UNAVAILABLE
            assert f"moved to {b.address}" in gone.value.reason
        assert "match" not in {w.world_id for w in source.list_worlds()}
        assert destination.step("match").tick == before[0] + 1, "the destination takes writes"
        after = destination.get_state_hash("match")

    # Back again, by address: the tombstone on the source is no obstacle.
    back = ac.migrate_world(b.address, a.address, "match")
    assert (back.tick, back.state_hash) == after
    with ac.Client(a.address) as source:
        assert source.get_state_hash("match") == after
        assert source.step("match").tick == after[0] + 1


def test_freeze_refuses_writes_lets_reads_through_and_thaw_undoes_it(journaled):
    a = journaled()
    with ac.Client(a.address) as c:
        before = make_world(c, "w", ticks=4)
        frozen = c.freeze_world("w", moving_to="10.0.0.2:50051")
        assert (frozen.tick, frozen.state_hash, frozen.history_ticks, frozen.frozen) == (*before, 40, True)
        assert c.freeze_world("w", moving_to="10.0.0.2:50051").frozen, "idempotent"
        with pytest.raises(ac.ArbiterError) as elsewhere:
            c.freeze_world("w", moving_to="10.0.0.3:50051")
        assert elsewhere.value.code == grpc.StatusCode.FAILED_PRECONDITION
        for write in (lambda: c.step("w"), lambda: c.add_bodies("w", [ac.body(99, "dynamic", (3, 3), [ac.circle(1)])]),
                      lambda: c.remove_bodies("w", [2]), lambda: c.update_bodies("w", [c.set_velocity(2, (1, 0))])):
            with pytest.raises(ac.ArbiterError) as refused:
                write()
            assert refused.value.code == grpc.StatusCode.UNAVAILABLE
            assert "is moving to 10.0.0.2:50051" in refused.value.reason
        assert c.get_state_hash("w") == before, "nothing changed; reads go on"
        assert c.cast_rays("w", RAYS, at=before[0]).tick == before[0]
        with pytest.raises(ac.ArbiterError) as no_destination:
            c.freeze_world("w")
        assert no_destination.value.code == grpc.StatusCode.INVALID_ARGUMENT
        thawed = c.freeze_world("w", thaw=True)
        assert not thawed.frozen
        assert c.step("w").tick == before[0] + 1


def test_import_world_checks_the_tick_and_hash_and_is_all_or_nothing(journaled):
    a, b = journaled(), journaled()
    with ac.Client(a.address) as source, ac.Client(b.address) as c:
        tick, state_hash = make_world(source, "w", ticks=10)
        journal = source.export_journal("w")
        with pytest.raises(ac.ArbiterError) as wrong:
            c.import_world("w", journal, expected_tick=tick, expected_state_hash=state_hash ^ 1)
        assert wrong.value.code == grpc.StatusCode.FAILED_PRECONDITION
        assert "expected_state_hash" in str(wrong.value)
        with pytest.raises(ac.ArbiterError) as cut:
            c.import_world("w", journal[:-3], expected_tick=tick, expected_state_hash=state_hash)
        assert cut.value.field == "journal"
        assert c.list_worlds() == [], "the refused imports left nothing"
        imported = c.import_world("w", journal, expected_tick=tick, expected_state_hash=state_hash)
        assert (imported.world.tick, imported.world.state_hash) == (tick, state_hash)
        assert imported.records > 0
        with pytest.raises(ac.ArbiterError) as again:
            c.import_world("w", journal, expected_tick=tick, expected_state_hash=state_hash)
        assert again.value.code == grpc.StatusCode.ALREADY_EXISTS


def expect_failed_move(source, destination, world_id, before, code, *fragments):
    """A move of `world_id` from `source` to `destination` fails with `code`
    and each of `fragments`, and the world still serves, unfrozen, on
    `source` as it was (`before`: its tick and hash). The (tick, hash) after
    one more step."""
    with pytest.raises(ac.ArbiterError) as failed:
        ac.migrate_world(source, destination, world_id)
    assert failed.value.code == code, failed.value
    for fragment in fragments:
        assert fragment in str(failed.value)
    assert source.get_state_hash(world_id) == before
    assert source.step(world_id).tick == before[0] + 1, "the source takes writes"
    return source.get_state_hash(world_id)


def test_failed_moves_leave_the_world_serving_on_the_source(journaled):
    a, b = journaled(), journaled()
    full = journaled("--max_worlds=1")
    gone = journaled()
    with ac.Client(a.address) as source, ac.Client(b.address) as destination, \
            ac.Client(full.address) as refusing, ac.Client(gone.address) as stopped:
        before = make_world(source, "staying", ticks=6)
        with pytest.raises(ac.ArbiterError) as unknown:
            ac.migrate_world(source, destination, "nobody")
        assert unknown.value.code == grpc.StatusCode.NOT_FOUND
        assert "--from: freezing world 'nobody'" in str(unknown.value) and "no world 'nobody'" in str(unknown.value)

        # The destination holds a world of that id: refused before the freeze.
        destination.create_world("staying")
        before = expect_failed_move(source, destination, "staying", before, grpc.StatusCode.ALREADY_EXISTS,
                                    "already holds world 'staying'")
        assert destination.describe_world("staying").world.tick == 0, "the destination's own world is untouched"

        # Nothing listens at the destination, or it stopped after connecting.
        dead = dead_address()
        before = expect_failed_move(source, dead, "staying", before, grpc.StatusCode.UNAVAILABLE,
                                    f"--to: connecting to {dead}")
        gone.stop()
        before = expect_failed_move(source, stopped, "staying", before, grpc.StatusCode.UNAVAILABLE,
                                    "--to: asking the destination about world 'staying'")

        # After the freeze: a destination whose one world slot is taken
        # refuses the import, and the source is thawed.
        refusing.create_world("other")
        before = expect_failed_move(source, refusing, "staying", before, grpc.StatusCode.RESOURCE_EXHAUSTED,
                                    "--to: importing the world", "the move was undone")
        assert [w.world_id for w in refusing.list_worlds()] == ["other"]


def test_a_failed_export_thaws_the_source(journaled):
    memory_only = start_server()  # no journal: ExportJournal is refused after the freeze
    b = journaled()
    try:
        with ac.Client(memory_only.address) as source:
            before = make_world(source, "w", ticks=3)
            expect_failed_move(source, b.address, "w", before, grpc.StatusCode.FAILED_PRECONDITION,
                               "--from: exporting the journal", "the move was undone")
    finally:
        memory_only.stop()


def token_file(path):
    path.write_text("".join(f"{hashlib.sha256(token.encode()).hexdigest()} {role} *\n"
                            for token, role in (("admin-0123", "admin"), ("writer-4567", "writer"))))
    return path


def test_only_admins_may_freeze_import_or_migrate(journaled, tmp_path):
    tokens = token_file(tmp_path / "tokens")
    a, b = journaled(f"--token_file={tokens}"), journaled(f"--token_file={tokens}")
    with ac.Client(a.address, token="admin-0123") as admin, ac.Client(a.address, token="writer-4567") as writer:
        before = make_world(admin, "w", ticks=5)
        denied = []
        for call in (lambda: writer.freeze_world("w", moving_to=b.address),
                     lambda: writer.import_world("v", b"", expected_tick=0, expected_state_hash=0),
                     lambda: ac.migrate_world(a.address, b.address, "w", token="writer-4567")):
            with pytest.raises(ac.ArbiterError) as refused:
                call()
            denied.append(refused.value.code)
        assert denied == [grpc.StatusCode.PERMISSION_DENIED] * 3
        assert writer.step("w").tick == before[0] + 1, "not frozen"
        report = ac.migrate_world(a.address, b.address, "w", token="admin-0123")
        assert report.tick == before[0] + 1
    with ac.Client(b.address, token="writer-4567") as there:
        assert there.get_state_hash("w") == (report.tick, report.state_hash)


def describe_when_back(client, world_id):
    """DescribeWorld's WorldInfo, retried while a restarted server replays
    its journal ("not back yet")."""
    for _ in range(400):
        try:
            return client.describe_world(world_id).world
        except ac.ArbiterError as error:
            if "not back yet" not in error.reason:
                raise
            time.sleep(0.05)
    raise AssertionError(f"world '{world_id}' did not come back")


def refused(call, code, *fragments):
    """call() fails with `code` and each of `fragments`; the error."""
    with pytest.raises(ac.ArbiterError) as failed:
        call()
    assert failed.value.code == code, failed.value
    for fragment in fragments:
        assert fragment in str(failed.value), failed.value
    return failed.value


def freeze_and_import(source, destination, world_id, to_address):
    """A move's first three stages by hand (the freeze, the export, the
    destination's import at the freeze's epoch), stopping before the
    source's delete. The FreezeWorldResponse."""
    frozen = source.freeze_world(world_id, moving_to=to_address)
    journal = source.export_journal(world_id, from_tick=max(0, frozen.tick - frozen.history_ticks))
    imported = destination.import_world(world_id, journal, expected_tick=frozen.tick,
                                        expected_state_hash=frozen.state_hash, expected_epoch=frozen.epoch)
    assert (imported.world.epoch, imported.world.moving_to) == (frozen.epoch, ""), "it serves there at the epoch"
    return frozen


def test_a_source_restarted_after_the_import_comes_back_frozen_and_resume_finishes_the_move(journaled):
    a, b = journaled(), journaled()
    with ac.Client(a.address) as source, ac.Client(b.address) as destination:
        before = make_world(source, "crashing", ticks=20)
        assert (source.describe_world("crashing").world.epoch, source.describe_world("crashing").world.moving_to) \
            == (0, "")
        frozen = freeze_and_import(source, destination, "crashing", b.address)
        assert (frozen.tick, frozen.state_hash, frozen.epoch) == (*before, 1)
    a.stop()  # SIGKILL before the source's delete
    a = journaled(data_dir=a.data_dir)

    with ac.Client(a.address) as source, ac.Client(b.address) as destination:
        back = describe_when_back(source, "crashing")
        assert (back.moving_to, back.epoch, back.tick, back.state_hash) == (b.address, frozen.epoch, *before), \
            "the source comes back frozen, not live"
        refused(lambda: source.step("crashing"), grpc.StatusCode.UNAVAILABLE, f"is moving to {b.address}")

        # The move happened: thawing the source would make two writers.
        refused(lambda: ac.thaw_world(source, "crashing", destination=destination),
                grpc.StatusCode.FAILED_PRECONDITION, f"serves world 'crashing' at epoch {frozen.epoch}",
                "the move happened")
        assert describe_when_back(source, "crashing").moving_to == b.address, "still frozen"
        # Resuming towards another destination is refused before anything changes.
        refused(lambda: ac.resume_migration(source, destination, "crashing", destination_address="10.0.0.9:1"),
                grpc.StatusCode.FAILED_PRECONDITION, f"is moving to {b.address}, not 10.0.0.9:1")

        report = ac.resume_migration(a.address, b.address, "crashing")
        assert (report.tick, report.state_hash, report.epoch) == (*before, frozen.epoch)
        assert report.resumed_after_import and report.records == 0 and report.warning == ""
        refused(lambda: source.get_state_hash("crashing"), grpc.StatusCode.UNAVAILABLE, f"moved to {b.address}")
        assert destination.step("crashing", expected_epoch=frozen.epoch).tick == before[0] + 1
        refused(lambda: ac.resume_migration(source, destination, "crashing"), grpc.StatusCode.NOT_FOUND,
                "does not hold world 'crashing'")


class ImportReplyLost(ac.Client):
    """A destination whose ImportWorld fails as if the connection dropped:
    after the server committed the import (`arrives`) or before it got it."""
    arrives = True

    def import_world(self, *args, **kwargs):
        if self.arrives:
            super().import_world(*args, **kwargs)
        raise ac.ArbiterError(grpc.StatusCode.UNAVAILABLE, None, "Socket closed")


def test_an_import_of_unknown_outcome_asks_the_destination_and_otherwise_leaves_the_source_frozen(journaled):
    a, b = journaled(), journaled()
    with ac.Client(a.address) as source, ImportReplyLost(b.address) as flaky, ac.Client(b.address) as destination:
        worlds = {w: make_world(source, w, ticks=8) for w in ("arrived", "lost", "undone")}

        # The import committed and only its reply was lost: the world serves
        # on the destination at the freeze's epoch, so the move goes on.
        report = ac.migrate_world(source, flaky, "arrived")
        assert (report.tick, report.state_hash, report.epoch, report.warning) == (*worlds["arrived"], 1, "")
        there = destination.describe_world("arrived").world
        assert (there.epoch, there.moving_to, there.state_hash) == (1, "", worlds["arrived"][1])
        refused(lambda: source.step("arrived"), grpc.StatusCode.UNAVAILABLE, f"moved to {b.address}")

        # The import never got there: the source stays frozen (thawing it
        # could make two writers were it not so) and the error says --resume.
        flaky.arrives = False
        for w in ("lost", "undone"):
            refused(lambda: ac.migrate_world(source, flaky, w), grpc.StatusCode.UNAVAILABLE,
                    "--to: importing the world: Socket closed", "whether the destination took the world is not known",
                    "--resume")
            held = source.describe_world(w).world
            assert (held.moving_to, held.epoch) == (b.address, 1)
            refused(lambda: source.step(w), grpc.StatusCode.UNAVAILABLE, f"is moving to {b.address}")
            refused(lambda: destination.describe_world(w), grpc.StatusCode.NOT_FOUND)

        resumed = ac.resume_migration(source, destination, "lost")
        assert (resumed.tick, resumed.state_hash, resumed.epoch) == (*worlds["lost"], 1)
        assert not resumed.resumed_after_import and resumed.records > 0 and resumed.export_bytes > 0
        assert destination.step("lost", expected_epoch=1).tick == worlds["lost"][0] + 1

        # The destination answers and does not hold it: thawing is safe.
        thawed = ac.thaw_world(a.address, "undone", destination=b.address)
        assert (thawed.frozen, thawed.epoch) == (False, 2)
        assert source.step("undone", expected_epoch=2).tick == worlds["undone"][0] + 1


def test_a_write_naming_a_stale_epoch_is_refused_by_a_copy_thawed_by_hand(journaled):
    a, b = journaled(), journaled()
    with ac.Client(a.address) as source, ac.Client(b.address) as destination:
        make_world(source, "w", ticks=6)
        frozen = freeze_and_import(source, destination, "w", b.address)
        # The operator's word, without asking the destination: two live copies.
        thawed = ac.thaw_world(source, "w")
        assert not thawed.frozen and thawed.epoch == frozen.epoch + 1
        assert (source.describe_world("w").world.epoch, source.describe_world("w").world.moving_to) \
            == (thawed.epoch, "")

        stale = f"expected_epoch: {frozen.epoch}, but world 'w' is at epoch {thawed.epoch}"
        snapshot = source.get_snapshot("w").snapshot
        before = source.get_state_hash("w")
        for write in (lambda c: c.step("w", expected_epoch=frozen.epoch),
                      lambda c: c.add_bodies("w", [ac.body(99, "dynamic", (3, 3), [ac.circle(1)])],
                                             expected_epoch=frozen.epoch),
                      lambda c: c.update_bodies("w", [c.set_velocity(2, (1, 0))], expected_epoch=frozen.epoch),
                      lambda c: c.remove_bodies("w", [2], expected_epoch=frozen.epoch),
                      lambda c: c.restore("w", snapshot, expected_epoch=frozen.epoch)):
            refused(lambda: write(source), grpc.StatusCode.FAILED_PRECONDITION, stale)
            assert source.get_state_hash("w") == before, "a refused write changes nothing"
            write(destination)  # the owner at that epoch takes it
        refused(lambda: destination.step("w", expected_epoch=thawed.epoch), grpc.StatusCode.FAILED_PRECONDITION,
                f"expected_epoch: {thawed.epoch}, but world 'w' is at epoch {frozen.epoch}")
        assert source.step("w", expected_epoch=thawed.epoch).tick == before[0] + 1
