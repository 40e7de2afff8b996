"""`pip install ./client/python` from a clean environment: a fresh venv (with
Debian's grpcio and protobuf as its system site packages), no PYTHONPATH, no
package index, run outside the repository. The installed package, with the
stubs its build generated, runs the documented first program against a live
server as test_readme.py runs it from the build tree."""

import os
import re
import subprocess

from test_readme import snippet

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(extra)
    return env


def run(args, cwd, **extra):
    return subprocess.run(args, cwd=cwd, env=clean_env(**extra), capture_output=True, text=True, timeout=300)


def test_pip_install_then_the_first_program(server, tmp_path):
    venv = tmp_path / "venv"
    made = run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)], tmp_path)
    assert made.returncode == 0, made.stderr
    python = str(venv / "bin" / "python")

    before = run([python, "-c", "import arbiter_client"], tmp_path)
    assert before.returncode != 0, "arbiter_client importable before it was installed"

    installed = run([python, "-m", "pip", "install", "--no-index", "--no-cache-dir", PROJECT], tmp_path)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    where = run([python, "-c", "import arbiter_client, arbiter.v1.arbiter_pb2 as pb; "
                 "print(arbiter_client.__file__); print(pb.__file__)"], tmp_path)
    assert where.returncode == 0, where.stderr
    for path in where.stdout.split():
        assert path.startswith(str(venv)), where.stdout

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
