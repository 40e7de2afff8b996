// A live arbiter-server from the build tree (ARBITER_SERVER_BINARY) on a free
// loopback port, for the tests.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';

export async function startServer(...flags) {
  const binary = process.env.ARBITER_SERVER_BINARY;
  if (!binary) throw new Error('ARBITER_SERVER_BINARY is not set (run through ctest)');
  const proc = spawn(binary, ['--listen=127.0.0.1:0', '--threads=2', '--data_dir=', ...flags], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Resolves once the process is gone (after stop(): SIGKILL).
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  const lines = createInterface({ input: proc.stdout });
  for await (const line of lines) {  // "arbiter-server listening on 127.0.0.1:PORT ..."
    const match = /listening on 127\.0\.0\.1:(\d+)/.exec(line);
    if (match) return { address: `127.0.0.1:${match[1]}`, stop: () => proc.kill('SIGKILL'), exited };
  }
  throw new Error('arbiter-server did not start');
}

/** An address where nothing listens (the port is closed again at once). */
export async function deadAddress() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return `127.0.0.1:${port}`;
}
