"""A live arbiter-server per test session, started from the build tree
(ARBITER_SERVER_BINARY) on a free loopback port."""

import os
import re
import subprocess

import pytest


class ServerProcess:
    def __init__(self, *flags):
        binary = os.environ["ARBITER_SERVER_BINARY"]
        self.proc = subprocess.Popen([binary, "--listen=127.0.0.1:0", "--threads=2", "--data_dir=", *flags],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()  # "arbiter-server listening on 127.0.0.1:PORT ..."
        match = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        if not match:
            self.stop()
            raise RuntimeError(f"arbiter-server did not start: {line!r} {self.proc.stderr.read()!r}")
        self.address = f"127.0.0.1:{match.group(1)}"

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def start_server(*flags):
    return ServerProcess(*flags)


@pytest.fixture(scope="session")
def server():
    s = ServerProcess("--max_batch=100")
    yield s
    s.stop()


@pytest.fixture(scope="session")
def journaled_server(tmp_path_factory):
    s = ServerProcess(f"--data_dir={tmp_path_factory.mktemp('journal')}", "--journal_sync=off")
    yield s
    s.stop()
