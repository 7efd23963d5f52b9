// What `a2a-gateway call` prints in text mode: each event as it arrives, then the final state and the remote's text.
// A blocking answer's one event is the final task itself: its line is printed once, not twice. The real CLI as a child
// process against a remote on a card server.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { cardServer, serveCompletedRemote } from '../support/card-server.js';
import { runCli } from '../support/child-server.js';

t.setTimeout(120_000);

t.test('a blocking call prints its task line once, then the answer', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-call-out-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const s = await cardServer(t);
  serveCompletedRemote(s, { name: 'echo', text: 'hello back' });
  const cfg = join(dir, 'config.json');
  await writeFile(cfg, JSON.stringify({ dataDir: join(dir, 'data'), push: { allowlist: ['127.0.0.1'] } }));
  const C = ['--config', cfg];
  const add = await runCli(['connections', 'add', ...C, '--workspace', 'ws1', '--name', 'echo', '--url', `${s.url}/echo`]);
  t.equal(add.code, 0, add.stderr);

  const r = await runCli(['call', 'echo', 'hi', '--workspace', 'ws1', ...C]);
  t.equal(r.code, 0, r.stderr);
  t.same(r.stdout.trimEnd().split('\n'), ['task rt-1: completed', 'hello back'], 'the task line once, then its text');
});

t.test('the exit status: 1 for a task failed (a remote rejected reads as failed) or canceled, 0 for completed or waiting for input', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-call-exit-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const s = await cardServer(t);
  const cfg = join(dir, 'config.json');
  await writeFile(cfg, JSON.stringify({ dataDir: join(dir, 'data'), push: { allowlist: ['127.0.0.1'] } }));
  const C = ['--config', cfg];
  // the remote's state, the exit status, the state printed (0.3 states the internal model lacks read as the nearest)
  const cases: [string, number, string][] = [
    ['failed', 1, 'failed'],
    ['rejected', 1, 'failed'],
    ['canceled', 1, 'canceled'],
    ['completed', 0, 'completed'],
    ['input-required', 0, 'input-required'],
    ['auth-required', 0, 'input-required'],
  ];
  for (const [state, code, printed] of cases) {
    serveCompletedRemote(s, { name: state, text: 'answer', state });
    const add = await runCli(['connections', 'add', ...C, '--workspace', 'ws1', '--name', state, '--url', `${s.url}/${state}`]);
    t.equal(add.code, 0, add.stderr);
    const r = await runCli(['call', state, 'hi', '--workspace', 'ws1', ...C]);
    t.equal(r.code, code, `${state}: exit ${code}`);
    t.match(r.stdout, `task rt-1: ${printed}\n`);
  }
});
