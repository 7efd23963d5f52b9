// With --json, a command that fails says so as JSON too: one line on stdout, where its result would have been,
// {"error": {"code", "message", "field"?}}, with the code the admin API gives the same condition; the message stays on
// stderr and the exit status is what it was. Every command family goes through the one path.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../support/child-server.js';

t.setTimeout(600_000);

t.test('every command family gives its failure as one JSON line with a stable code', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-json-err-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const D = ['--data-dir', join(dir, 'data'), '--json'];
  const cases: Array<[string, string[], Record<string, string>, number, { code: string; message: RegExp | string; field?: string }]> = [
    [
      'keys: bad input',
      ['keys', 'create', '--workspace', 'ws1', '--trust', 'boss', ...D],
      {},
      2,
      { code: 'invalid_input', message: /^trust: /, field: 'trust' },
    ],
    ['keys: an unknown key', ['keys', 'revoke', 'key_nope', ...D], {}, 2, { code: 'invalid_input', message: 'no key with id key_nope' }],
    [
      'connections: not found',
      ['connections', 'show', 'nope', '--workspace', 'ws1', ...D],
      {},
      2,
      { code: 'connection_not_found', message: 'no connection named nope in workspace ws1', field: 'name' },
    ],
    [
      'relays: not found',
      ['relays', 'show', 'nope', '--workspace', 'ws1', ...D],
      {},
      2,
      { code: 'relay_not_found', message: 'no relay named nope in workspace ws1', field: 'name' },
    ],
    [
      'webhooks: no workspace',
      ['webhooks', 'secret', 'rotate', ...D],
      {},
      2,
      { code: 'webhook_secret', message: 'workspace: --workspace is required', field: 'workspace' },
    ],
    [
      'webhooks: a malformed workspace',
      ['webhooks', 'secret', 'rotate', '--workspace', 'a/b', ...D],
      {},
      2,
      { code: 'webhook_secret', message: /^workspace: /, field: 'workspace' },
    ],
    ['call: no such connection', ['call', 'nope', 'hi', '--workspace', 'ws1', ...D], {}, 1, { code: 'no_connection', message: /no connection 'nope'/ }],
    ['config: a bad env value', ['keys', 'list', ...D], { A2A_PORT: '0x10' }, 2, { code: 'config', message: /^invalid environment:\n {2}A2A_PORT/ }],
    [
      'store: Redis cannot be reached',
      ['keys', 'list', ...D],
      { A2A_STORE: 'redis', REDIS_URL: 'redis://127.0.0.1:1' },
      1,
      { code: 'store_unavailable', message: /ECONNREFUSED/ },
    ],
    ['serve: an unknown flag', ['serve', '--prot', '0', ...D], {}, 2, { code: 'usage', message: /Unknown option '--prot'/ }],
    ['an unknown command', ['frobnicate', '--json'], {}, 2, { code: 'usage', message: "unknown command 'frobnicate'" }],
    [
      'a flag given twice',
      ['keys', 'list', '--workspace', 'a', '--workspace', 'b', ...D],
      {},
      2,
      { code: 'usage', message: /--workspace is given more than once/ },
    ],
  ];
  const results = await Promise.all(cases.map(([, args, env]) => runCli(args, { env })));
  for (const [i, [what, , , exit, error]] of cases.entries()) {
    const r = results[i]!;
    t.equal(r.code, exit, `${what}: exit ${exit} (${r.stderr.split('\n')[0]})`);
    const lines = r.stdout.trim().split('\n');
    t.equal(lines.length, 1, `${what}: one line on stdout`);
    let got: unknown;
    try {
      got = JSON.parse(lines[0]!);
    } catch {
      t.fail(`${what}: stdout is JSON: ${JSON.stringify(r.stdout)}`);
      continue;
    }
    t.match(got, { error: error }, `${what}: the error as JSON`);
    t.same(Object.keys(got as object), ['error'], `${what}: the error alone`);
    if (error.field === undefined) t.notOk('field' in (got as { error: object }).error, `${what}: no field where none is at fault`);
    const message = (got as { error: { message: string } }).error.message;
    t.ok(r.stderr.includes(message.split('\n')[0]!), `${what}: stderr still says it`);
  }
});

t.test('without --json, nothing is printed on stdout for a failure, as before', async (t) => {
  const r = await runCli(['keys', 'revoke', 'key_nope', '--data-dir', join(tmpdir(), 'a2a-json-err-none')]);
  t.teardown(() => rm(join(tmpdir(), 'a2a-json-err-none'), { recursive: true, force: true }));
  t.equal(r.code, 2);
  t.equal(r.stdout, '');
  t.match(r.stderr, /^a2a-gateway: no key with id key_nope/);
});
