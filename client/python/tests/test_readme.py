"""The documentation's client snippets (between <!-- snippet: NAME -->
markers, in README.md or docs/*.md) run against a live server: the Python
first program and the migration example (against two) as programs, and
each grpcurl line through the reflection calls grpcurl makes."""

import os
import re
import shlex
import subprocess
import sys

import pytest
from google.protobuf import descriptor_pb2

import server_reflection_pb2 as refl
from conftest import start_server
from snippets import snippet
from test_reflection import call, pool_for, reflect


def test_python_first_program(server, tmp_path):
    program = tmp_path / "first.py"
    program.write_text(snippet("python-first-program"))
    assert len(program.read_text().splitlines()) < 30
    result = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "ARBITER_SERVER": server.address})
    assert result.returncode == 0, result.stderr
    assert "max_batch 100" in result.stdout
    assert re.search(r"tick 120: body 2 hit at y = (0\.99\d|1\.00\d)", result.stdout), result.stdout
    assert "refused: ALREADY_EXISTS world_id" in result.stdout


def test_python_migrate_program(tmp_path):
    program = tmp_path / "migrate.py"
    program.write_text(snippet("python-migrate"))
    assert len(program.read_text().splitlines()) < 30
    servers = [start_server(f"--data_dir={tmp_path / name}", "--journal_sync=off") for name in ("a", "b")]
    try:
        result = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, timeout=120,
                                env={**os.environ, "ARBITER_FROM": servers[0].address,
                                     "ARBITER_TO": servers[1].address})
    finally:
        for s in servers:
            s.stop()
    assert result.returncode == 0, result.stderr
    before = re.search(r"^before: (tick 30 hash 0x[0-9a-f]+)$", result.stdout, re.M)
    assert before, result.stdout
    assert re.search(r"^after: (.*)$", result.stdout, re.M).group(1) == before.group(1), result.stdout
    assert re.search(r"^moved at tick 30: [1-9]\d* records, [1-9]\d* bytes, writes refused for \d+\.\d ms$",
                     result.stdout, re.M), result.stdout
    assert f"source: UNAVAILABLE world 'roaming' moved to {servers[1].address}; retry" in result.stdout, result.stdout


def grpcurl(address, line):
    """One grpcurl command line, done with reflection: its output as text."""
    args = shlex.split(line)
    assert args[0] == "grpcurl"
    data = None
    rest = []
    i = 1
    while i < len(args):
        if args[i] == "-d":
            data = args[i + 1]
            i += 2
        elif args[i] == "-plaintext":
            i += 1
        else:
            rest.append(args[i])
            i += 1
    assert re.fullmatch(r"127\.0\.0\.1:\d+", rest[0]), line
    verb = rest[1:]
    if verb == ["list"]:
        (reply,) = reflect(address, refl.ServerReflectionRequest(list_services=""))
        return "\n".join(s.name for s in reply.list_services_response.service)
    if verb[0] == "describe":
        pool = pool_for(address, verb[1])
        for find in (pool.FindServiceByName, pool.FindMethodByName, pool.FindMessageTypeByName):
            try:
                found = find(verb[1])
            except KeyError:
                continue
            proto = descriptor_pb2.ServiceDescriptorProto() if find == pool.FindServiceByName else None
            if proto is not None:
                found.CopyToProto(proto)
                return str(proto)
            return f"{found.full_name} is a {type(found).__name__}"
        raise AssertionError(f"symbol {verb[1]} not described")
    service, method = verb[0].split("/")
    pool = pool_for(address, service)
    return str(call(address, pool, f"{service}.{method}", json_text=data))


@pytest.mark.parametrize("index", range(5))
def test_grpcurl_lines(server, index):
    lines = [line for line in snippet("grpcurl").splitlines() if line.strip()]
    assert len(lines) == 5
    out = grpcurl(server.address, lines[index])
    expected = ["grpc.health.v1.Health", 'name: "Check"', "status: SERVING",
                "arbiter.v1.Arbiter.GetServerInfo is a MethodDescriptor", "max_batch: 100"][index]
    assert expected in out, out
