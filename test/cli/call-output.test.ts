// What `a2a-gateway call` prints in text mode: each event as it arrives, then the final state and the remote's text.
// A blocking answer's one event is the final task itself: its line is printed once, not twice. The real CLI as a child
// process against a remote on a card server.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { cardServer } from '../support/card-server.js';
import { runCli } from '../support/child-server.js';

t.setTimeout(120_000);

t.test('a blocking call prints its task line once, then the answer', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-call-out-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const s = await cardServer(t);
  const card = { name: 'echo', description: '', url: `${s.url}/echo/rpc`, version: '1', protocolVersion: '0.3.0', capabilities: {} };
  s.route.set('/echo/.well-known/agent-card.json', () => ({ status: 200, body: card }));
  s.route.set('/echo/rpc', (_h, body) => {
    const id = JSON.parse(body).id;
    const task = {
      kind: 'task',
      id: 'rt-1',
      contextId: 'c-1',
      status: { state: 'completed' },
      artifacts: [{ artifactId: 'a1', parts: [{ kind: 'text', text: 'hello back' }] }],
    };
    return { status: 200, body: { jsonrpc: '2.0', id, result: task } };
  });
  const cfg = join(dir, 'config.json');
  await writeFile(cfg, JSON.stringify({ dataDir: join(dir, 'data'), push: { allowlist: ['127.0.0.1'] } }));
  const C = ['--config', cfg];
  const add = await runCli(['connections', 'add', ...C, '--workspace', 'ws1', '--name', 'echo', '--url', `${s.url}/echo`]);
  t.equal(add.code, 0, add.stderr);

  const r = await runCli(['call', 'echo', 'hi', '--workspace', 'ws1', ...C]);
  t.equal(r.code, 0, r.stderr);
  t.same(r.stdout.trimEnd().split('\n'), ['task rt-1: completed', 'hello back'], 'the task line once, then its text');
});
