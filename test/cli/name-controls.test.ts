// Names an operator chooses (a key's name, a workspace, a connection's agents, a relay's workspace) may not hold
// bidi controls (U+202A-U+202E, U+2066-U+2069, and the marks U+200E, U+200F, U+061C) or C0/C1 control characters:
// shown in a listing, they make it show another text than the one stored ("invoice\u202Efdp.exe" reads as
// "invoiceexe.pdf"). Refused with exit 2 naming the field; nothing is created. Letters of right-to-left scripts
// stay fine. The real CLI on a temp LMDB dir.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { printedNoResult, runCli } from '../support/child-server.js';

t.setTimeout(600_000);

t.test('a name with a bidi control or a C1 control is refused, naming the field; nothing is created', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-name-controls-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const D = ['--data-dir', dir];
  const key = ['keys', 'create', ...D, '--trust', 'read_only', '--json'];
  const conn = ['connections', 'add', ...D, '--workspace', 'ws1', '--name', 'c1', '--url', 'https://a.example.com'];
  const cases: Array<[string, string[], RegExp]> = [
    ['a key name with U+202E', [...key, '--workspace', 'ws1', '--name', 'invoice\u202Efdp.exe'], /a2a-gateway: name: .*bidi controls/],
    ['a key name with U+2066', [...key, '--workspace', 'ws1', '--name', 'a\u2066b\u2069'], /a2a-gateway: name: .*bidi controls/],
    ['a key name with U+200F', [...key, '--workspace', 'ws1', '--name', 'a\u200Fb'], /a2a-gateway: name: .*bidi controls/],
    ['a key name with a C1 control', [...key, '--workspace', 'ws1', '--name', 'a\u0085b'], /a2a-gateway: name: no control characters/],
    ['a workspace with U+202D', [...key, '--workspace', 'ws\u202D1'], /a2a-gateway: workspace: .*bidi controls/],
    ['a connection agent with U+202E', [...conn, '--agents', 'echo,ech\u202Eo'], /a2a-gateway: agents\[1\]: letters, digits/],
    [
      'a relay workspace with U+202E',
      ['relays', 'add', ...D, '--workspace', 'ws\u202E1', '--name', 'r1', '--key', 'key_x'],
      /a2a-gateway: workspace: .*bidi controls/,
    ],
    [
      'a relay workspace with a newline',
      ['relays', 'add', ...D, '--workspace', 'ws1\nrelay r2', '--name', 'r1', '--key', 'key_x'],
      /a2a-gateway: workspace: no control/,
    ],
  ];
  const results = await Promise.all(cases.map(([, args]) => runCli(args, { timeoutMs: 60_000 })));
  for (const [i, [what, , message]] of cases.entries()) {
    const r = results[i]!;
    t.equal(r.code, 2, `${what}: exits 2 (${r.stderr.split('\n')[0]})`);
    t.ok(printedNoResult(r), `${what}: prints no result on stdout (with --json, its error alone): ${r.stdout}`);
    t.match(r.stderr, message, `${what}: names the field`);
  }
  const [keys, connections, relays] = await Promise.all([
    runCli(['keys', 'list', ...D, '--json']),
    runCli(['connections', 'list', ...D, '--json']),
    runCli(['relays', 'list', ...D, '--json']),
  ]);
  t.same(JSON.parse(keys.stdout), [], 'no key was created');
  t.same(JSON.parse(connections.stdout), [], 'no connection was added');
  t.same(JSON.parse(relays.stdout), [], 'no relay was added');
  const ok = await runCli([...key, '--workspace', 'ws1', '--name', 'مفتاح שלום']);
  t.equal(ok.code, 0, `right-to-left letters are fine: ${ok.stderr}`);
});
