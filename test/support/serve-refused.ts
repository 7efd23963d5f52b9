// Test support: `a2a-gateway serve` run to a refusal at start: it exits by itself with the status expected, never
// listens, shows no stack trace, and has written nothing (its data dir is not made).
import { existsSync } from 'node:fs';
import type { Test } from 'tap';
import { runCli, type CliResult } from './child-server.js';

/**
 * Runs `serve` on port 0 (unless `args` give a port) with `args`; a value wrongly taken listens and is killed after
 * 45 s (the test then fails). `code`: 2 for bad config (the default), 1 for an address that cannot be had.
 */
export async function serveRefused(
  t: Test,
  what: string,
  dataDir: string,
  args: string[],
  env: Record<string, string> = {},
  o: { code?: 1 | 2 } = {},
): Promise<CliResult> {
  const port = args.includes('--port') ? [] : ['--port', '0'];
  const r = await runCli(['serve', ...port, '--data-dir', dataDir, ...args], { env, timeoutMs: 45_000 });
  t.equal(r.code, o.code ?? 2, `${what}: exit ${o.code ?? 2}: ${r.stderr.trim()}`);
  t.notMatch(r.stdout, /listening/, `${what}: never listens`);
  t.notMatch(r.stderr, /\n\s+at |App construction failed/, `${what}: no stack trace, no bare uWS error`);
  t.notOk(existsSync(dataDir), `${what}: nothing written (no data dir made)`);
  return r;
}
