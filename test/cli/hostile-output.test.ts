// What the CLI prints did not all come from the operator: a remote agent's answer (`call`) and records another
// process or an older version stored. A control character in it (ESC sequences that clear the screen or write the
// clipboard, a carriage return that writes over a line, a C1 control) or a bidi control must not reach the terminal
// raw: text output shows each as U+FFFD (a remote's newlines kept), --json carries none raw (the same value, valid
// JSON), stderr quotes a remote's error the same way. The real CLI as a child process, a fake remote on a card server.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openLmdbStore } from '../../src/runtime/store/lmdb/index.js';
import { cardServer, remoteCard, serveCompletedRemote } from '../support/card-server.js';
import { runCli } from '../support/child-server.js';

t.setTimeout(600_000);

const HOSTILE = 'line one\x1b]52;c;cHduZWQ=\x07\x1b[2J\rforged\u202Egnp.exe\u0085\u2028end\nline two';
/** raw characters that must never reach the terminal: C0 and C1 controls but the newline, bidi controls, U+2028/9 */
const RAW = /[^\n\P{Cc}]|[\u202a-\u202e\u2066-\u2069\u2028\u2029]/u;

t.test('a remote answer with control and bidi characters is printed escaped, text and --json', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-hostile-out-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const s = await cardServer(t);
  serveCompletedRemote(s, { name: 'hostile', text: HOSTILE });
  s.route.set('/refuser/.well-known/agent-card.json', () => ({
    status: 200,
    body: remoteCard({ base: s.url, name: 'refuser', dialect: '0.3', streaming: false }),
  }));
  s.route.set('/refuser/rpc', (_h, body) => ({ status: 200, body: { jsonrpc: '2.0', id: JSON.parse(body).id, error: { code: -32000, message: HOSTILE } } }));
  const cfg = join(dir, 'config.json');
  await writeFile(cfg, JSON.stringify({ dataDir: join(dir, 'data'), push: { allowlist: ['127.0.0.1'] } }));
  const C = ['--config', cfg];
  for (const name of ['hostile', 'refuser']) {
    const add = await runCli(['connections', 'add', ...C, '--workspace', 'ws1', '--name', name, '--url', `${s.url}/${name}`]);
    t.equal(add.code, 0, add.stderr);
  }

  const text = await runCli(['call', 'hostile', 'hi', '--workspace', 'ws1', ...C]);
  t.equal(text.code, 0, text.stderr);
  t.notMatch(text.stdout, RAW, 'no raw control or bidi character on stdout');
  t.match(
    text.stdout,
    'line one\uFFFD]52;c;cHduZWQ=\uFFFD\uFFFD[2J\uFFFDforged\uFFFDgnp.exe\uFFFD\uFFFDend\nline two',
    'each read as U+FFFD, the newline kept',
  );

  const json = await runCli(['call', 'hostile', 'hi', '--workspace', 'ws1', ...C, '--json']);
  t.equal(json.code, 0, json.stderr);
  t.notMatch(json.stdout, RAW, '--json: none raw either');
  t.equal(JSON.parse(json.stdout.trimEnd().split('\n').pop()!).task.artifacts[0].parts[0].text, HOSTILE, '--json: the same value');

  const refused = await runCli(['call', 'refuser', 'hi', '--workspace', 'ws1', ...C]);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /call failed \(remote_error\)/);
  t.notMatch(refused.stderr, RAW, "the remote's error message on stderr: none raw");
});

t.test('a stored key name with a newline or a bidi control lists on its own line, escaped', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-hostile-keys-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const made = await runCli(['keys', 'create', '--data-dir', dir, '--workspace', 'ws1', '--trust', 'read_only', '--name', 'laptop', '--json']);
  t.equal(made.code, 0, made.stderr);
  const { id } = JSON.parse(made.stdout);
  // as an older version (or another program) could have stored it: writes are not validated
  const store = await openLmdbStore({ path: join(dir, 'store') });
  const rec = await store.keys.get(id);
  await store.keys.put({ ...rec!, name: 'laptop\nkey_forged  ws1  admin  active  expires never\u202E' });
  await store.close();

  const list = await runCli(['keys', 'list', '--data-dir', dir]);
  t.equal(list.code, 0, list.stderr);
  t.equal(list.stdout.trimEnd().split('\n').length, 1, 'one line for one key: no forged line');
  t.notMatch(list.stdout.trimEnd(), RAW);
  t.match(list.stdout, 'laptop\uFFFDkey_forged');
  const json = await runCli(['keys', 'list', '--data-dir', dir, '--json']);
  t.notMatch(json.stdout.trimEnd(), RAW, '--json: none raw');
  t.match(JSON.parse(json.stdout)[0].name, /^laptop\nkey_forged.*\u202E$/, '--json: the same value');
});
