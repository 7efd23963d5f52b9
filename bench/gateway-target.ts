// Bench target "gateway": our server through its whole pipeline. Creates a fresh data dir and an
// admin key with huge rate limits via the CLI, then runs `serve --port 0` pinned to the server core.
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { serverPid, spawnPinned, stop, waitListening } from './proc.js';
import type { Running } from './targets.js';

const run = promisify(execFile);
const CLI = 'bin/a2a-gateway.js';

function keyOf(text: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && 'key' in parsed && typeof parsed.key === 'string') return parsed.key;
  } catch {
    // not this candidate
  }
  return undefined;
}

export async function createKey(root: string, dataDir: string): Promise<string> {
  const args = [
    CLI,
    'keys',
    'create',
    '--data-dir',
    dataDir,
    '--workspace',
    'bench',
    '--trust',
    'admin',
    '--per-minute',
    '1000000000',
    '--per-hour',
    '1000000000',
    '--json',
  ];
  const { stdout } = await run(process.execPath, args, { cwd: root, timeout: 30_000 }).catch((err: unknown) => {
    const stderr = typeof err === 'object' && err !== null && 'stderr' in err ? String(err.stderr) : String(err);
    const lines = stderr.trim().split('\n');
    const reason = lines.find((l) => /error/i.test(l)) ?? lines.slice(-3).join(' | ');
    throw new Error(`"a2a-gateway keys create" failed: ${reason.trim()}`);
  });
  const lines = stdout
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .reverse();
  const candidates = [stdout.trim(), ...lines, stdout.slice(stdout.indexOf('{'), stdout.lastIndexOf('}') + 1)];
  for (const text of candidates) {
    const key = keyOf(text);
    if (key !== undefined) return key;
  }
  throw new Error(`"keys create --json" printed no {"key": ...}:\n${stdout}`);
}

export async function startGateway(core: number, root: string): Promise<Running> {
  const dataDir = mkdtempSync(join(tmpdir(), 'a2a-bench-'));
  const removeDir = (): void => rmSync(dataDir, { recursive: true, force: true });
  process.on('exit', removeDir);
  let child: ChildProcess | undefined;
  try {
    const key = await createKey(root, dataDir);
    const args = [CLI, 'serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir];
    child = spawnPinned(core, process.execPath, args, root);
    const base = await waitListening(child, 'gateway');
    const server = child;
    return {
      endpoint: `${base}/api/a2a`,
      authorization: `Bearer ${key}`,
      pid: serverPid(server, 'gateway'),
      shutdown: async () => {
        await stop(server);
        removeDir();
      },
    };
  } catch (err) {
    if (child !== undefined) await stop(child);
    removeDir();
    throw err;
  }
}
