#!/usr/bin/env python3
"""Runs the README's 60-second tour as it stands, against a live server.

    readme_tour_test.py --root REPO --build BUILD_DIR

The README shows the server's command line and a list of `./build/client/
arbiter ...` commands. This test reads them from README.md's ```sh blocks
(so an edit to the README is what gets tested), starts the server line in a
temporary directory whose `build/` and `scenes/` are links to the real ones,
and runs every CLI line in order, verbatim but for `--server` pointing at a
free port. Each must exit 0; `watch` (which streams until stopped) must
print the ticks of a step taken while it runs. The tour's `render` writes
an SVG, which must be there afterwards.

Exit status 0 when every command ran as the README promises, 1 otherwise;
each failure names the README line.
"""

import argparse
import os
import re
import shlex
import socket
import subprocess
import sys
import tempfile
import time

CLI = './build/client/arbiter'
SERVER = './build/server/arbiter-server'


def sh_lines(readme):
    """(line number, command) of each command line in the ```sh blocks;
    trailing `# comments` dropped."""
    fence = False
    for number, line in enumerate(open(readme, encoding='utf-8').read().split('\n'), start=1):
        stripped = line.strip()
        if stripped.startswith('```'):
            fence = stripped == '```sh' if not fence else False
            continue
        if fence and stripped and not stripped.startswith('#'):
            yield number, re.sub(r'\s+#.*$', '', stripped)


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def wait_serving(cwd, server, deadline_s=60):
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        r = subprocess.run([CLI, 'health', '--server', server], cwd=cwd, capture_output=True, text=True)
        if r.returncode == 0:
            return True
        time.sleep(0.2)
    return False


def with_server(command, server):
    """The README's command with --server added to each CLI call in it
    (a line may chain two with &&)."""
    parts = []
    for piece in command.split('&&'):
        words = shlex.split(piece)
        if words and words[0] == CLI:
            words += ['--server', server]
        parts.append(words)
    return parts


def run_watch(cwd, words, server, failures, number):
    """`watch` streams until stopped: start it, step, and expect the ticks."""
    watcher = subprocess.Popen(words, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    time.sleep(1.0)  # let the stream open before the step it should see
    step = subprocess.run([CLI, 'step', '--world', 'demo', '3', '--server', server], cwd=cwd,
                          capture_output=True, text=True)
    time.sleep(1.0)
    watcher.terminate()
    out, _ = watcher.communicate(timeout=30)
    if step.returncode != 0 or 'tick' not in out:
        failures.append(f'README.md:{number}: watch printed no tick of a step taken while it ran:\n{out}')
    else:
        print(f'ok   README.md:{number}: {" ".join(words)} (saw a step taken while it ran)')


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--root', required=True)
    parser.add_argument('--build', required=True)
    args = parser.parse_args()
    readme = os.path.join(args.root, 'README.md')
    lines = list(sh_lines(readme))
    server_lines = [(n, c) for n, c in lines if c.startswith(SERVER)]
    cli_lines = [(n, c) for n, c in lines if c.startswith(CLI)]
    if len(server_lines) != 1 or len(cli_lines) < 10:
        print(f'README.md: expected one server line and the tour, found {len(server_lines)} and {len(cli_lines)}')
        return 1

    failures = []
    with tempfile.TemporaryDirectory(prefix='arbiter-tour-') as cwd:
        os.symlink(os.path.abspath(args.build), os.path.join(cwd, 'build'))
        os.symlink(os.path.join(os.path.abspath(args.root), 'scenes'), os.path.join(cwd, 'scenes'))
        port = free_port()
        server = f'127.0.0.1:{port}'
        words = [w.replace('127.0.0.1:50051', server) for w in shlex.split(server_lines[0][1])]
        proc = subprocess.Popen(words, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            if not wait_serving(cwd, server):
                proc.terminate()
                print(f'README.md:{server_lines[0][0]}: the server did not serve:\n{proc.communicate()[0]}')
                return 1
            for number, command in cli_lines:
                calls = with_server(command, server)
                if calls[0][1] == 'watch':
                    run_watch(cwd, calls[0], server, failures, number)
                    continue
                for call in calls:
                    r = subprocess.run(call, cwd=cwd, capture_output=True, text=True, timeout=300)
                    if r.returncode != 0:
                        failures.append(f'README.md:{number}: {command}\n  exit {r.returncode}: {r.stdout}{r.stderr}')
                        break
                    print(f'ok   README.md:{number}: {" ".join(call)}')
            if not os.path.isfile(os.path.join(cwd, 'demo.svg')):
                failures.append('README.md: the tour\'s render left no demo.svg')
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
    for f in failures:
        print('FAIL ' + f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
