// Bad input to `keys`, `connections`, `relays`, `call` and `webhooks` is refused before the store is opened: exit 2, the field named
// (on stderr and in the --json error), and nothing made, not even the data dir (with LMDB's lock file in it). Before,
// these checks ran after the store was opened, so a mistyped workspace id left a data dir behind (and `call` answered
// a malformed name as an unknown connection, exit 1; `keys list --workspace ''` listed every workspace).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../support/child-server.js';

t.setTimeout(600_000);

/** args, the field the error names, and what stderr says of it */
type Case = [what: string, args: string[], field: string, message: RegExp];

const CASES: Case[] = [
  ['keys create: a workspace id with "/"', ['keys', 'create', '--workspace', 'a/b', '--trust', 'admin'], 'workspace', /workspace: a workspace id has no "\/"/],
  ['keys create: no --workspace', ['keys', 'create', '--trust', 'admin'], 'workspace', /workspace: --workspace is required/],
  ['keys create: no --trust', ['keys', 'create', '--workspace', 'ws1'], 'trust', /trust: --trust is required/],
  ['keys create: a name with a newline', ['keys', 'create', '--workspace', 'ws1', '--trust', 'admin', '--name', 'a\nb'], 'name', /name: no control characters/],
  [
    'keys create: a scope beyond the trust',
    ['keys', 'create', '--workspace', 'ws1', '--trust', 'read_only', '--scopes', 'tasks.cancel'],
    'scopes',
    /scopes: tasks\.cancel not in trust level read_only/,
  ],
  [
    'keys create: an expiry in the past',
    ['keys', 'create', '--workspace', 'ws1', '--trust', 'admin', '--expires-at', '2001-01-01'],
    'expires_at',
    /expires_at: must be in the future/,
  ],
  [
    'keys create: a bad --per-minute',
    ['keys', 'create', '--workspace', 'ws1', '--trust', 'admin', '--per-minute', '0x10'],
    'per-minute',
    /per-minute: '0x10' is not a whole number/,
  ],
  ['keys list: an empty --workspace', ['keys', 'list', '--workspace', ''], 'workspace', /workspace: give a workspace id/],
  ['keys revoke: no key id', ['keys', 'revoke'], 'id', /revoke: give the key id/],
  ['keys rotate: a key id with an escape', ['keys', 'rotate', 'key_\u001b[2J'], 'id', /id: no control characters/],
  [
    'connections show: a workspace id with "/"',
    ['connections', 'show', 'c1', '--workspace', 'a/b'],
    'workspace',
    /workspace: a workspace id has no "\/" \(--workspace\)/,
  ],
  [
    'connections remove: a bad name',
    ['connections', 'remove', 'no such!', '--workspace', 'ws1'],
    'name',
    /name: letters, digits, dot, dash, underscore \(--name\)/,
  ],
  ['connections status: a bad name', ['connections', 'status', '--name', 'a b', '--workspace', 'ws1'], 'name', /name: letters, digits/],
  ['connections list: an empty --workspace', ['connections', 'list', '--workspace', ''], 'workspace', /workspace: give a workspace id \(--workspace\)/],
  ['connections update: nothing to change', ['connections', 'update', 'c1', '--workspace', 'ws1'], '', /update: nothing to change/],
  [
    'connections add: an internal URL',
    ['connections', 'add', '--workspace', 'ws1', '--name', 'c1', '--url', 'http://127.0.0.1:9/a2a'],
    'url',
    /127\.0\.0\.1.*\(--url\)/,
  ],
  ['relays list: an empty --workspace', ['relays', 'list', '--workspace', ''], 'workspace', /workspace: give a workspace id \(--workspace\)/],
  ['call: a workspace id with "/"', ['call', 'c1', 'hi', '--workspace', 'a/b'], 'workspace', /workspace: a workspace id has no "\/" \(--workspace\)/],
  [
    'call: a bad connection name',
    ['call', 'no such!', 'hi', '--workspace', 'ws1'],
    'connection',
    /connection: letters, digits, dot, dash, underscore \(CONNECTION\)/,
  ],
  ['webhooks secret rotate: a workspace id with "/"', ['webhooks', 'secret', 'rotate', '--workspace', 'a/b'], '', /workspace: a workspace id has no "\/"/],
  [
    'call: a bad --agent',
    ['call', 'c1', 'hi', '--workspace', 'ws1', '--agent', 'an agent'],
    'agent',
    /agent: letters, digits, dot, dash, underscore \(--agent\)/,
  ],
];

/** The --json error line, or undefined where stdout holds something else (a result). */
function errorOf(stdout: string): { message: string; field?: string } | undefined {
  try {
    return (JSON.parse(stdout) as { error?: { message: string; field?: string } }).error;
  } catch {
    return undefined;
  }
}

t.test('bad input to keys, connections, relays, call and webhooks: exit 2, the field named, no data dir made', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-before-store-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const dataDirOf = (i: number, json: boolean) => join(dir, `data-${i}${json ? '-json' : ''}`);
  const runs = CASES.flatMap(([, args], i) => [
    runCli([...args, '--data-dir', dataDirOf(i, false)]),
    runCli([...args, '--data-dir', dataDirOf(i, true), '--json']),
  ]);
  const results = await Promise.all(runs);
  for (const [i, [what, , field, message]] of CASES.entries()) {
    const plain = results[2 * i]!;
    const json = results[2 * i + 1]!;
    t.equal(plain.code, 2, `${what}: exit 2 (${plain.stderr.split('\n')[0]})`);
    t.match(plain.stderr, message, `${what}: says what is wrong`);
    t.equal(plain.stdout, '', `${what}: no result printed`);
    t.equal(json.code, 2, `${what} (--json): exit 2`);
    const error = errorOf(json.stdout);
    t.match(error?.message, message, `${what} (--json): the message`);
    if (field !== '') t.equal(error?.field, field, `${what} (--json): names the field`);
    t.notOk(existsSync(dataDirOf(i, false)), `${what}: no data dir made`);
    t.notOk(existsSync(dataDirOf(i, true)), `${what} (--json): no data dir made`);
  }
});

t.test('good input still makes the data dir and does its work', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-before-store-ok-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const dataDir = join(dir, 'data');
  const made = await runCli(['keys', 'create', '--workspace', 'ws1', '--trust', 'execute', '--data-dir', dataDir, '--json']);
  t.equal(made.code, 0, made.stderr);
  const listed = await runCli(['keys', 'list', '--workspace', 'ws1', '--data-dir', dataDir, '--json']);
  t.equal((JSON.parse(listed.stdout) as unknown[]).length, 1, 'the key is listed in its workspace');
  t.ok(existsSync(join(dataDir, 'store')), 'the store is where it was');
});
