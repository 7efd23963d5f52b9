// The command line refuses what it would otherwise act on silently: a flag given twice (the last used to win), a key
// of another workspace than the one named, a flag or argument the subcommand would ignore, a key name or workspace
// that would forge a line of `keys list`. Nothing changes, on either store.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { createKeyCli, printedNoResult, runCli, type CliResult } from '../support/child-server.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';

t.setTimeout(600_000);

async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-flags-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function refused(t: Test, r: CliResult, names: RegExp, what: string): void {
  t.equal(r.code, 2, `${what}: exits 2`);
  t.ok(printedNoResult(r), `${what}: prints no result on stdout (with --json, its error alone): ${r.stdout}`);
  t.match(r.stderr, names, `${what}: says what is wrong (${r.stderr.split('\n')[0]})`);
}

t.test('a flag with a value given twice is refused, naming it (never its values); nothing is created', async (t) => {
  const dir = await tempDir(t);
  const D = ['--data-dir', dir];
  const cases: Array<[string, string[]]> = [
    ['keys create --workspace', ['keys', 'create', ...D, '--workspace', 'ws1', '--trust', 'admin', '--workspace', 'ws2', '--json']],
    ['keys list --workspace', ['keys', 'list', ...D, '--workspace', 'ws1', '--workspace=ws2', '--json']],
    [
      'connections add --token',
      [
        'connections',
        'add',
        ...D,
        '--workspace',
        'ws1',
        '--name',
        'c',
        '--url',
        'https://a.example.com',
        '--auth',
        'bearer',
        '--token',
        'tok-one-SECRET',
        '--token',
        'tok-two-SECRET',
      ],
    ],
    ['relays add --workspace', ['relays', 'add', ...D, '--workspace', 'ws1', '--name', 'r', '--key', 'key_x', '--workspace', 'ws2']],
    ['call --workspace', ['call', 'conn', 'hello', ...D, '--workspace', 'ws1', '--workspace', 'ws2']],
    ['webhooks secret rotate --workspace', ['webhooks', 'secret', 'rotate', ...D, '--workspace', 'ws1', '--workspace', 'ws2', '--json']],
    ['serve --port', ['serve', ...D, '--port', '0', '--port', '0']],
  ];
  const results = await Promise.all(cases.map(([, args]) => runCli(args, { timeoutMs: 60_000 })));
  cases.forEach(([what], i) => {
    const flag = what.split(' ').pop()!;
    refused(t, results[i]!, new RegExp(`${flag} is given more than once`), what);
    t.notMatch(results[i]!.stderr, /SECRET/, `${what}: no value in the message`);
  });
  const [keys, connections] = await Promise.all([runCli(['keys', 'list', ...D, '--json']), runCli(['connections', 'list', ...D, '--json'])]);
  t.same(JSON.parse(keys.stdout), [], 'no key was created');
  t.same(JSON.parse(connections.stdout), [], 'no connection was added');
});

t.test('a key name or workspace with a control character, or a name past 100 characters, is refused; nothing is created', async (t) => {
  const dir = await tempDir(t);
  const base = ['keys', 'create', '--data-dir', dir, '--trust', 'read_only', '--json'];
  const forged = 'key_0000000000000000  ws1  admin  active  expires never';
  const cases: Array<[string, string[], RegExp]> = [
    ['a name with a newline', ['--workspace', 'ws1', '--name', `laptop\n${forged}`], /name: no control characters/],
    ['a name with an escape', ['--workspace', 'ws1', '--name', 'red \u001b[31m'], /name: no control characters/],
    ['a name of 101 characters', ['--workspace', 'ws1', '--name', 'n'.repeat(101)], /name: at most 100 characters/],
    ['a workspace with a newline', ['--workspace', `ws1\n${forged}`], /workspace: no control characters/],
  ];
  const results = await Promise.all(cases.map(([, args]) => runCli([...base, ...args])));
  for (const [i, [what, , message]] of cases.entries()) refused(t, results[i]!, message, what);
  // the list before the good create: run side by side, the create could land first
  const list = await runCli(['keys', 'list', '--data-dir', dir]);
  t.equal(list.stdout, 'no keys\n', 'no key was created; keys list shows no forged line');
  const ok = await runCli([...base, '--workspace', 'wß😀', '--name', `my laptop — ${'n'.repeat(80)}`]);
  t.equal(ok.code, 0, `letters of any script are fine: ${ok.stderr}`);
});

const stores: Array<{ name: string; env: (t: Test) => Record<string, string> }> = [
  { name: 'lmdb', env: () => ({}) },
  {
    name: 'redis',
    env: (t) => {
      const prefix = testPrefix('cli-flags');
      t.teardown(() => cleanupPrefix(REDIS_URL, prefix));
      return { A2A_STORE: 'redis', REDIS_URL, A2A_REDIS_PREFIX: prefix };
    },
  },
];

for (const store of stores) {
  t.test(`${store.name}: keys revoke and rotate act only on the workspace named, one key at a time, with their own flags`, async (t) => {
    const dir = await tempDir(t);
    const env = store.env(t);
    const D = ['--data-dir', dir];
    const [a, b] = await Promise.all([createKeyCli(dir, { workspace: 'ws1', env }), createKeyCli(dir, { workspace: 'ws1', env })]);
    const cli = (args: string[]) => runCli(args, { env });

    const [revokeOther, rotateOther, two, trustFlag, listExtra] = await Promise.all([
      cli(['keys', 'revoke', a.id, ...D, '--workspace', 'ws2', '--json']),
      cli(['keys', 'rotate', a.id, ...D, '--workspace', 'ws2', '--json']),
      cli(['keys', 'revoke', a.id, b.id, ...D]),
      cli(['keys', 'revoke', a.id, ...D, '--trust', 'read_only']),
      cli(['keys', 'list', 'ws1', ...D]),
    ]);
    refused(t, revokeOther, new RegExp(`workspace: key ${a.id} belongs to workspace ws1, not ws2; nothing changed`), 'revoke with another workspace');
    refused(t, rotateOther, /workspace: key .* belongs to workspace ws1, not ws2/, 'rotate with another workspace');
    t.notMatch(rotateOther.stdout, /svc_a2a_/, 'no new key shown');
    refused(t, two, new RegExp(`keys revoke: unexpected '${b.id}' \\(one key id at a time\\)`), 'revoke of two ids');
    refused(t, trustFlag, /keys revoke: --trust is a flag of create only/, 'revoke --trust');
    refused(t, listExtra, /keys list: unexpected 'ws1'/, 'list with an argument');

    const listed = JSON.parse((await cli(['keys', 'list', ...D, '--json'])).stdout) as Array<{ id: string; revoked: boolean }>;
    t.same(
      listed.map((k) => [k.id, k.revoked]).sort(),
      [
        [a.id, false],
        [b.id, false],
      ].sort(),
      'both keys still active, and no key was added',
    );

    const own = await cli(['keys', 'revoke', a.id, ...D, '--workspace', 'ws1', '--json']);
    t.equal(own.code, 0, own.stderr);
    t.equal(JSON.parse(own.stdout).revoked, true, 'with its own workspace named, the key is revoked');
  });
}

t.test('keys create: an agent or a scope listed twice is refused, naming it; nothing is created', async (t) => {
  const dir = await tempDir(t);
  const base = ['keys', 'create', '--data-dir', dir, '--workspace', 'ws1', '--json'];
  const agents = await runCli([...base, '--trust', 'read_only', '--agents', 'echo,slow,echo']);
  refused(t, agents, /agents\.2: "echo" is listed twice; list it once/, 'an agent listed twice');
  const scopes = await runCli([...base, '--trust', 'execute', '--scopes', 'tasks.read,tasks.read']);
  refused(t, scopes, /scopes\.1: "tasks\.read" is listed twice; list it once/, 'a scope listed twice');
  const list = await runCli(['keys', 'list', '--data-dir', dir]);
  t.equal(list.stdout, 'no keys\n', 'no key was created');
  const ok = await runCli([...base, '--trust', 'read_only', '--agents', 'echo,slow']);
  t.equal(ok.code, 0, `agents listed once are fine: ${ok.stderr}`);
});
