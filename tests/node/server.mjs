// Starts a real hotkv-server on a free port for one test file, the way
// tests/integration/conftest.py does for pytest. HOTKV_SERVER names the binary.
// HOTKV_TEST_PEER=/path/redis-server starts that reference server instead (to check a
// test against Redis first), with HOTKV_TEST_MODULE=/path/module.so loaded into it
// (e.g. RediSearch for the FT.* tests).
import { spawn } from 'node:child_process';
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const PEER = process.env.HOTKV_TEST_PEER || '';
export const SERVER = PEER || process.env.HOTKV_SERVER || path.join(ROOT, 'build/release/hotkv-server');
const PEER_ARGS = PEER ? ['--save', '', '--appendonly', 'no',
  ...(process.env.HOTKV_TEST_MODULE ? ['--loadmodule', process.env.HOTKV_TEST_MODULE] : [])] : [];

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function canConnect(port) {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.once('connect', () => { sock.destroy(); resolve(true); });
    sock.once('error', () => resolve(false));
  });
}

// Returns { port, url, stop() }. `args` are redis-server style flags.
export async function startServer(args = []) {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotkv-node-'));
  const proc = spawn(SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir,
    '--enable-debug-command', 'yes', ...PEER_ARGS, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  let exited = false;
  proc.once('exit', () => { exited = true; });
  const deadline = Date.now() + 10000;
  while (!(await canConnect(port))) {
    if (exited) throw new Error(`${SERVER} exited during start`);
    if (Date.now() > deadline) { proc.kill('SIGKILL'); throw new Error('server did not start'); }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (!exited) {
        const done = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await done;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Drops every index (FT._LIST) through a connected node-redis client: tests start from no
// index even when an earlier one failed half-way (FLUSHALL dropping them is tested apart).
export async function dropAllIndexes(client) {
  for (const name of await client.sendCommand(['FT._LIST'])) {
    await client.sendCommand(['FT.DROPINDEX', String(name)]);
  }
}
