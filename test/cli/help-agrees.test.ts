// The README's command lines and each command's --help name the same flags (`keys --help` left --json off `keys
// revoke`, the README left --workspace off revoke and rotate), and the --json the help names for `relays agent-trust`
// and `relays agent-keys` (which neither said) is taken: one JSON line. The real CLIs as child processes.
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createKeyCli, REPO_ROOT, RELAY_BIN, runCli } from '../support/child-server.js';

t.setTimeout(120_000);

const flags = (line: string): string[] => [...new Set(line.match(/--[a-z][a-z-]*/g) ?? [])].sort();

t.test("the README's command lines and --help name the same flags", async (t) => {
  const readme = (await readFile(join(REPO_ROOT, 'README.md'), 'utf8')).split('\n');
  const readmeLine = (prefix: string) => readme.find((l) => l.startsWith(prefix)) ?? '';
  // [the README line's start, the help to read, the help line's start]
  const pairs: Array<[string, string[], string]> = [
    ['a2a-gateway serve ', ['serve', '--help'], 'usage: a2a-gateway serve '],
    ['a2a-gateway keys list ', ['keys', '--help'], '  keys list '],
    ['a2a-gateway keys revoke ', ['keys', '--help'], '  keys revoke '],
    ['a2a-gateway keys revoke ', ['keys', 'revoke', '--help'], 'usage: a2a-gateway keys revoke '],
    ['a2a-gateway keys rotate ', ['keys', '--help'], '  keys rotate '],
    ['a2a-gateway keys rotate ', ['keys', 'rotate', '--help'], 'usage: a2a-gateway keys rotate '],
    ['a2a-gateway webhooks secret rotate ', ['webhooks', 'secret', 'rotate', '--help'], 'usage: a2a-gateway webhooks secret rotate '],
    ['a2a-gateway call ', ['call', '--help'], 'usage: a2a-gateway call '],
    ['a2a-gateway relays add ', ['relays', '--help'], '  relays add '],
    ['a2a-gateway relays list ', ['relays', '--help'], '  relays list '],
    ['a2a-gateway relays show ', ['relays', '--help'], '  relays show '],
    ['a2a-gateway relays agents ', ['relays', '--help'], '  relays agents '],
    ['a2a-gateway relays agent-trust ', ['relays', '--help'], '  relays agent-trust '],
    ['a2a-gateway relays agent-keys ', ['relays', '--help'], '  relays agent-keys '],
    ['a2a-gateway relays remove ', ['relays', '--help'], '  relays remove '],
  ];
  const helps = new Map<string, string>();
  for (const [, args] of pairs) if (!helps.has(args.join(' '))) helps.set(args.join(' '), (await runCli(args)).stdout);
  for (const [readmeStart, args, helpStart] of pairs) {
    const inReadme = readmeLine(readmeStart);
    const inHelp = (helps.get(args.join(' ')) ?? '').split('\n').find((l) => l.startsWith(helpStart)) ?? '';
    t.not(inReadme, '', `${readmeStart.trim()}: in the README`);
    t.not(inHelp, '', `${helpStart.trim()}: in ${args.join(' ')}`);
    t.strictSame(flags(inHelp.split('  ').slice(0, 2).join('  ')), flags(inReadme.split('#')[0]!), `${readmeStart.trim()} (${args.join(' ')})`);
  }

  // the relay: its usage line and the README's two command lines
  const relayHelp = (await runCli(['--help'], { bin: RELAY_BIN })).stdout.split('\n')[0]!;
  const relayReadme = readme.filter((l) => l.startsWith('a2a-relay ')).map((l) => l.split('#')[0]!);
  t.strictSame(flags(relayHelp), flags(relayReadme.join(' ')), 'a2a-relay');
});

t.test('relays agent-trust and agent-keys take the --json their help names', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-help-agrees-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const help = (await runCli(['relays', '--help'])).stdout.split('\n');
  for (const sub of ['agent-trust', 'agent-keys'])
    t.match(help.find((l) => l.startsWith(`  relays ${sub} `)) ?? '', /\[--json\]/, `relays --help names --json for ${sub}`);
  const D = ['--data-dir', join(dir, 'data')];
  const key = await createKeyCli(join(dir, 'data'), { workspace: 'ws1', trust: 'execute' });
  const add = await runCli(['relays', 'add', '--workspace', 'ws1', '--name', 'home', '--key', key.id, ...D]);
  t.equal(add.code, 0, add.stderr);
  for (const args of [
    ['agent-trust', 'home', 'local-echo', 'admin'],
    ['agent-keys', 'home', 'local-echo', 'all'],
  ]) {
    const r = await runCli(['relays', ...args, '--workspace', 'ws1', ...D, '--json']);
    t.equal(r.code, 0, r.stderr);
    t.match(JSON.parse(r.stdout), { name: 'local-echo' }, `${args[0]}: one JSON line`);
  }
});
