"""Through a real fleet (docker/cluster.sh: three arbiter-server processes
behind nginx routing by x-arbiter-world): the client names each call's
world in its metadata, so worlds created through the proxy spread over the
instances and every later call finds its world on its owner."""

import os
import socket
import pathlib
import shutil
import subprocess
import tempfile

import pytest

import arbiter_client as ac

CLUSTER = pathlib.Path(__file__).resolve().parents[3] / "docker" / "cluster.sh"
NGINX = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")


@pytest.fixture(scope="module")
def fleet():
    if NGINX is None:
        pytest.fail("nginx is not installed (scripts/install-deps.sh installs it)")
    root = tempfile.mkdtemp(prefix="arbiter-py-fleet-")
    # NGINX_BIN, not NGINX: nginx itself reads $NGINX (inherited sockets).
    env = dict(os.environ, ARBITER_SERVER=os.environ["ARBITER_SERVER_BINARY"], NGINX_BIN=NGINX)
    subprocess.run(["bash", str(CLUSTER), "start", root, "3"], check=True, env=env, stdout=subprocess.DEVNULL)
    values = dict(line.split("=", 1) for line in pathlib.Path(root, "cluster.env").read_text().split())
    yield values["PROXY"], values["INSTANCES"].split(",")
    subprocess.run(["bash", str(CLUSTER), "stop", root], check=False, env=env)
    shutil.rmtree(root, ignore_errors=True)


def test_worlds_spread_over_the_fleet_and_calls_find_their_owner(fleet):
    proxy, instances = fleet
    names = [f"py-{i}" for i in range(12)]
    with ac.Client(proxy) as c:
        for name in names:
            c.create_world(name)
            c.step(name, ticks=2)
            assert c.get_state_hash(name)[0] == 2
    owners = {}
    for index, address in enumerate(instances):
        with ac.Client(address) as direct:
            for w in direct.list_worlds():
                owners.setdefault(w.world_id, []).append(index)
    assert sorted(owners) == sorted(names)
    assert all(len(where) == 1 for where in owners.values())
    # Without the metadata every call would reach the same instance.
    assert len({where[0] for where in owners.values()}) >= 2


def test_list_fleet_worlds_asks_every_instance_and_names_the_unreachable(fleet):
    proxy, instances = fleet
    names = [f"py-list-{i}" for i in range(12)]
    with ac.Client(proxy) as c:
        for name in names:
            c.create_world(name)
        # Through the proxy ListWorlds reaches one instance only.
        seen_through_proxy = {w.world_id for w in c.list_worlds()}
    listing = ac.list_fleet_worlds(instances)
    assert listing.unreachable == []
    mine = [w for w in listing.worlds if w.world_id in names]
    assert [w.world_id for w in mine] == sorted(names)
    ids = [w.world_id for w in listing.worlds]
    assert ids == sorted(ids) and len(ids) == len(set(ids))
    for w in mine:
        with ac.Client(w.instance) as direct:
            assert w.world_id in {x.world_id for x in direct.list_worlds()}
    assert not set(names) <= seen_through_proxy
    # An address where nothing listens: named, and the others still listed.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"127.0.0.1:{s.getsockname()[1]}"
    partial = ac.list_fleet_worlds([dead] + instances, timeout=5.0)
    assert [address for address, _ in partial.unreachable] == [dead]
    assert partial.unreachable[0][1].code.name == "UNAVAILABLE"
    assert [w.world_id for w in partial.worlds] == ids
