"""Seeing every world of a fleet: ListWorlds asked of each instance.

A fleet's proxy routes a call by its world (x-arbiter-world), and ListWorlds
names no world, so through the proxy it reaches one instance and lists only
that instance's worlds. A client that wants them all asks every instance of
a known list and merges the answers; that is what list_fleet_worlds does.
"""

from collections import namedtuple

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
