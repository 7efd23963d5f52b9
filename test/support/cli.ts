// Test support: runs the real CLI (`node bin/a2a-gateway.js ...`) as a child process.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/a2a-gateway.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `a2a-gateway ...args`. `secret` becomes A2A_SECRET for the child, so that keys it mints hash
 * the same way as on a server started with that secret (startTestGateway passes its own secret; pass `tg.gw.secret`).
 */
export function runCli(args: string[], o: { secret?: Buffer; env?: Record<string, string> } = {}): Promise<CliResult> {
  // the CLI under test is the sources (through tsx), even where `npm install` left a build in dist/
  const env: NodeJS.ProcessEnv = { ...process.env, A2A_FROM_SOURCE: '1', ...o.env };
  delete env.A2A_CONFIG;
  delete env.A2A_STORE;
  delete env.A2A_DATA_DIR;
  if (o.secret) env.A2A_SECRET = o.secret.toString('utf8');
  else delete env.A2A_SECRET;
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The last stdout line parsed as JSON (the CLI's `--json` output). */
export function jsonOut(r: CliResult): unknown {
  const lines = r.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1] ?? '');
}
