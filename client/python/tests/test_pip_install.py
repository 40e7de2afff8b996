"""`pip install ./client/python` from a clean environment (CTest's
python_client.pip_install): docs/clients.md's install commands (the
python-install snippet) run as they stand with bash, from the root of a tree
laid out as the repository is (a copy of client/python, without its tests,
and of proto/) outside the repository, with no PYTHONPATH and no package
index. The fresh venv they make (Debian's grpcio and protobuf as its system
site packages) then runs the documented first program against a live server,
with the package and the stubs its build generated, and uninstalls it."""

import os
import re
import shutil
import subprocess

from snippets import snippet

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROTO = os.path.join(PROJECT, "..", "..", "proto")


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(extra)
    return env


def run(args, cwd, **extra):
    return subprocess.run(args, cwd=cwd, env=clean_env(**extra), capture_output=True, text=True, timeout=300)


def repository_copy(root):
    """client/python (no tests, no caches) and proto/ under root, as in the
    repository, so that the build backend finds ../../proto."""
    shutil.copytree(PROJECT, root / "client" / "python",
                    ignore=shutil.ignore_patterns("tests", "__pycache__", "*.pyc", "build", "*.egg-info"))
    shutil.copytree(PROTO, root / "proto")


def test_the_documented_pip_install_then_the_first_program(server, tmp_path):
    root = tmp_path / "checkout"
    repository_copy(root)

    commands = snippet("python-install")
    installed = run(["bash", "-euo", "pipefail", "-c", commands], root)
    assert installed.returncode == 0, commands + installed.stdout + installed.stderr
    python = str(root / "venv" / "bin" / "python")
    assert os.path.isfile(python), "the commands made no venv/ where they ran"

    where = run([python, "-c", "import arbiter_client, arbiter.v1.arbiter_pb2 as pb; "
                 "print(arbiter_client.__file__); print(pb.__file__)"], tmp_path)
    assert where.returncode == 0, where.stderr
    for path in where.stdout.split():
        assert path.startswith(str(root / "venv")), where.stdout

    # The installed copy runs without the tree it was built from.
    shutil.rmtree(root / "client")
    shutil.rmtree(root / "proto")
    program = tmp_path / "first.py"
    program.write_text(snippet("python-first-program"))
    result = run([python, str(program)], tmp_path, ARBITER_SERVER=server.address)
    assert result.returncode == 0, result.stderr
    assert "max_batch 100" in result.stdout
    assert re.search(r"tick 120: body 2 hit at y = (0\.99\d|1\.00\d)", result.stdout), result.stdout
    assert "refused: ALREADY_EXISTS world_id" in result.stdout

    removed = run([python, "-m", "pip", "uninstall", "--yes", "arbiter-client"], tmp_path)
    assert removed.returncode == 0, removed.stderr
    assert run([python, "-c", "import arbiter_client"], tmp_path).returncode != 0, "uninstall left the package"
