// Issue 6, first contact (items 19 to 23): ports, help, the README's config, config errors, small CLI answers.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createKeyCli, rpcAt, runCli, startChildServer } from '../support/child-server.js';

// about 40 CLI processes and two servers: on a loaded 2-core machine this file took over 3 minutes (CI, load 27)
t.setTimeout(600_000);

t.test('item 19: a second gateway on a port in use exits non-zero naming the port and why; the first keeps it alone', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-port-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const first = await startChildServer({ dataDir: join(dir, 'one') });
  t.teardown(() => first.kill('SIGKILL'));
  const second = await runCli(['serve', '--port', String(first.port), '--data-dir', join(dir, 'two')], { timeoutMs: 60_000 });
  t.not(second.code, 0, 'exits non-zero');
  t.notMatch(second.stdout, /listening/, 'never says it listens');
  t.match(second.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${first.port}: the port is already in use`), second.stderr);
  const h = await fetch(`${first.url}/healthz`);
  t.equal(h.status, 200, 'the first gateway still answers');

  // a port held by another kind of socket (a plain TCP server) says why too
  const other = createServer();
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise((r) => other.close(r)));
  const port = (other.address() as { port: number }).port;
  const third = await runCli(['serve', '--port', String(port), '--data-dir', join(dir, 'three')], { timeoutMs: 60_000 });
  t.not(third.code, 0);
  t.match(third.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the port is already in use`), third.stderr);
});

t.test('item 20: every command and subcommand answers --help with its usage and exit 0; --version; the env list is whole', async (t) => {
  for (const args of [
    ['--help'],
    ['-h'],
    ['help'],
    ['serve', '--help'],
    ['keys', '--help'],
    ['keys', 'create', '--help'],
    ['keys', 'list', '-h'],
    ['keys', 'revoke', '--help'],
    ['keys', 'rotate', '--help'],
    ['webhooks', '--help'],
    ['webhooks', 'secret', 'rotate', '--help'],
  ]) {
    const r = await runCli(args);
    t.equal(r.code, 0, `${args.join(' ')}: exit 0`);
    t.match(r.stdout, /^usage: a2a-gateway/, `${args.join(' ')}: usage`);
    if (args.length > 1 && args[0] !== 'help')
      t.match(r.stdout, new RegExp(`a2a-gateway ${args.filter((a) => !a.startsWith('-')).join(' ')}`), `${args.join(' ')}: its own usage`);
  }
  const v = await runCli(['--version']);
  t.equal(v.code, 0);
  t.match(v.stdout, /^a2a-gateway \d+\.\d+\.\d+/);
  const top = await runCli(['--help']);
  for (const name of [
    'A2A_CONFIG',
    'A2A_HOST',
    'A2A_PORT',
    'A2A_DATA_DIR',
    'A2A_STORE',
    'REDIS_URL',
    'A2A_REDIS_PREFIX',
    'A2A_INSTANCE_ID',
    'A2A_PUBLIC_URL',
    'A2A_MAX_BODY_BYTES',
    'A2A_SECRET',
    'LOG_LEVEL',
  ]) {
    t.match(top.stdout, name, `the help names ${name}`);
  }
});

t.test('item 23: `webhooks` alone and `keys` alone say what subcommands exist; `keys list` of an empty workspace says so', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-cli-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const w = await runCli(['webhooks', '--data-dir', dir]);
  t.equal(w.code, 2);
  t.match(w.stderr, /the only one is 'secret rotate'/);
  const k = await runCli(['keys', '--data-dir', dir]);
  t.equal(k.code, 2);
  t.match(k.stderr, /create, list, revoke or rotate/);
  const empty = await runCli(['keys', 'list', '--workspace', 'nobody', '--data-dir', dir]);
  t.equal(empty.code, 0);
  t.equal(empty.stdout.trim(), 'no keys in workspace nobody');
  const json = await runCli(['keys', 'list', '--workspace', 'nobody', '--data-dir', dir, '--json']);
  t.equal(json.stdout.trim(), '[]');
});

t.test("item 21: a module agent's relative entry is resolved against the config file; a missing one stops serve at start", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-readme-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'agents'));
  await writeFile(
    join(dir, 'agents', 'summarizer.js'),
    "export default async function* ({ message }) { yield { type: 'artifact', artifact: { parts: [{ kind: 'text', text: 'summary: ' + message.parts[0].text }] } }; }\n",
  );
  const agent = {
    id: 'summarizer',
    name: 'Summarizer',
    kind: 'module',
    entry: './agents/summarizer.js',
    workspace: 'acme',
    listed: true,
    default: true,
    skills: [{ id: 'summarize', name: 'Summarize', description: 'Summarizes text' }],
  };
  await writeFile(join(dir, 'config.json'), JSON.stringify({ port: 8080, agents: [agent] }));
  // the server runs from the repository, not from the config file's directory
  const s = await startChildServer({ dataDir: join(dir, 'data'), args: ['--config', join(dir, 'config.json')] });
  t.teardown(() => s.kill('SIGKILL'));
  const { key } = await createKeyCli(join(dir, 'data'), { workspace: 'acme' });
  const r = await rpcAt(s.url, {
    key,
    method: 'message/send',
    params: { message: { kind: 'message', role: 'user', messageId: 'm1', parts: [{ kind: 'text', text: 'long text' }] } },
  });
  t.equal(r.json.result?.status?.state, 'completed', 'the README example runs');
  t.same(r.json.result?.artifacts?.[0]?.parts, [{ kind: 'text', text: 'summary: long text' }]);
  const card = await fetch(`${s.url}/api/a2a/agents/summarizer/.well-known/agent-card.json`);
  t.equal(card.status, 404, 'a workspace agent has no public card (the README says the rule)');

  await writeFile(join(dir, 'bad.json'), JSON.stringify({ agents: [{ ...agent, entry: './agents/missing.js' }] }));
  const bad = await runCli(['serve', '--port', '0', '--config', join(dir, 'bad.json'), '--data-dir', join(dir, 'data2')]);
  t.equal(bad.code, 2, 'serve refuses to start');
  t.match(bad.stderr, /agent 'summarizer': entry .*agents\/missing\.js does not exist/);
});

t.test('item 22: config errors name the setting, the file and the fix', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-cfg-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'eighty.json'), JSON.stringify({ port: 'eighty' }));
  await writeFile(join(dir, 'broken.json'), '{"port": ');
  await writeFile(join(dir, 'list.json'), '[1]');
  const eighty = await runCli(['serve', '--config', join(dir, 'eighty.json'), '--data-dir', dir]);
  t.match(eighty.stderr, /invalid config file .*eighty\.json:\n {2}port \(--port, A2A_PORT\): must be a port number from 0 to 65535/);
  t.notMatch(eighty.stderr, /NaN/);
  const hidden = await runCli(['serve', '--config', join(dir, 'eighty.json'), '--port', '0', '--data-dir', dir]);
  t.equal(hidden.code, 2, 'a bad value in the file is reported though a flag overrides it');
  t.match(hidden.stderr, /eighty\.json/);
  const broken = await runCli(['serve', '--config', join(dir, 'broken.json'), '--data-dir', dir]);
  t.match(broken.stderr, /broken\.json is not valid JSON/);
  const list = await runCli(['serve', '--config', join(dir, 'list.json'), '--data-dir', dir]);
  t.match(list.stderr, /must hold one JSON object of settings/);
  await writeFile(join(dir, 'a-file'), 'x');
  const unusable = await runCli(['keys', 'list', '--data-dir', join(dir, 'a-file', 'data')]);
  t.equal(unusable.code, 2);
  t.match(
    unusable.stderr,
    /dataDir \(--data-dir, A2A_DATA_DIR\) .*a-file\/data: cannot use it for the store: a part of the path is a file, not a directory \(ENOTDIR\)\. Point it at a writable directory/,
  );
  t.notMatch(unusable.stderr, /^\s+at /m, 'no stack trace');
});
