// Bench target "gateway": our server through its whole pipeline. Creates a fresh data dir and an
// admin key with huge rate limits via the CLI, then runs `serve --port 0` pinned to the server core;
// optionally with a config file and a CLI step of its own first (the outbound section adds a connection).
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

/** Runs `a2a-gateway <args>` in `root`; its stdout, or an error naming the failing command and its error line. */
export async function runCli(root: string, args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [CLI, ...args], { cwd: root, timeout: 30_000 }).catch((err: unknown) => {
    const stderr = typeof err === 'object' && err !== null && 'stderr' in err ? String(err.stderr) : String(err);
    const lines = stderr.trim().split('\n');
    const reason = lines.find((l) => /error|refused|invalid/i.test(l)) ?? lines.slice(-3).join(' | ');
    throw new Error(`"a2a-gateway ${args.slice(0, 2).join(' ')}" failed: ${reason.trim()}`);
  });
  return stdout;
}

export async function createKey(root: string, dataDir: string): Promise<string> {
  const args = [
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
  const stdout = await runCli(root, args);
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

export interface GatewayOptions {
  /** written to <dataDir>/config.json and passed as --config */
  config?: Record<string, unknown>;
  /** run before the server starts, with the same data dir and config (e.g. `connections add`) */
  setup?: (o: { dataDir: string; configFile?: string }) => Promise<void>;
}

export async function startGateway(core: number, root: string, o: GatewayOptions = {}): Promise<Running> {
  const dataDir = mkdtempSync(join(tmpdir(), 'a2a-bench-'));
  const removeDir = (): void => rmSync(dataDir, { recursive: true, force: true });
  process.on('exit', removeDir);
  let child: ChildProcess | undefined;
  try {
    const key = await createKey(root, dataDir);
    const configFile = o.config === undefined ? undefined : join(dataDir, 'config.json');
    if (configFile !== undefined) writeFileSync(configFile, JSON.stringify(o.config));
    await o.setup?.({ dataDir, configFile });
    const args = [CLI, 'serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, ...(configFile === undefined ? [] : ['--config', configFile])];
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
        process.off('exit', removeDir);
      },
    };
  } catch (err) {
    if (child !== undefined) await stop(child);
    removeDir();
    process.off('exit', removeDir);
    throw err;
  }
}
