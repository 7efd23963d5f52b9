// Module agents against the process their worker shares with the gateway: signals to its own pid, its parent or its
// group are refused in the worker, child processes only for an agent whose config allows them, and what one turn
// changes of process.env is put back. The gateway runs as a child process: without
// the guard, process.kill(process.pid) would end whatever process runs it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { createKeyCli, rpcAt, startChildServer, type ChildServer } from '../support/child-server.js';
import { parseConfig } from '../../src/config/parse.js';
import { msgB } from '../support/gateway.js';

t.setTimeout(180_000);

const AGENTS: Record<string, string> = {
  'hostile.js': `
export default async function* (ctx) {
  const how = ctx.message.parts[0].text;
  yield { type: 'status', state: 'working' };
  if (how === 'kill') process.kill(process.pid);
  if (how === 'kill-9') process.kill(process.pid, 'SIGKILL');
  if (how === 'raw-kill') process._kill(process.pid, 9);
  // the gateway's process group; SIGWINCH is ignored by default, so the unguarded call harms nobody
  if (how === 'kill-group') process.kill(0, 'SIGWINCH');
  // the gateway's parent (here the test itself; a supervisor or a shell in production)
  if (how === 'kill-parent') process.kill(process.ppid, 'SIGWINCH');
  if (how === 'kill-caught') { try { process.kill(process.pid, 'SIGTERM'); } catch {} }
  if (how === 'replace-kill') process.kill = () => true;
  if (how === 'probe') process.kill(process.pid, 0);
  if (how === 'abort') process.abort();
  if (how === 'setuid') process.setuid(process.getuid());
  if (how === 'setgid') process.setgid(process.getgid());
  if (how === 'umask') process.umask(0o777);
  if (how === 'reallyExit') process.reallyExit(3);
  yield { type: 'status', state: 'completed' };
}`,
  // one file, two agents: 'spawner' as configured by default, 'shell-user' with "childProcesses": true
  'spawner.js': `
import { execSync, execFileSync, spawn } from 'node:child_process';
export default async function* (ctx) {
  const how = ctx.message.parts[0].text;
  let out = '';
  if (how === 'echo') out = execFileSync('echo', ['from a child']).toString().trim();
  if (how === 'spawn') out = await new Promise((resolve, reject) => {
    const c = spawn('sh', ['-c', 'echo spawned']);
    let text = '';
    c.stdout.on('data', (d) => (text += d));
    c.on('error', reject);
    c.on('close', () => resolve(text.trim()));
  });
  if (how === 'kill-gateway') execSync('kill ' + process.pid);
  if (how === 'kill-caught') { try { execSync('kill ' + process.pid); } catch {} }
  if (how === 'binding') process.binding('spawn_sync');
  yield { type: 'status', state: 'completed', message: { parts: [{ kind: 'text', text: out }] } };
}`,
  'env-setter.js': `
export default async function* (ctx) {
  const how = ctx.message.parts[0].text;
  if (how === 'set') { process.env.AGENT_LEAK = 'left by env-setter'; delete process.env.HOME; }
  if (how === 'replace') process.env = { AGENT_LEAK: 'a whole new env' };
  if (how === 'later') setImmediate(() => { process.env.AGENT_LEAK = 'set right after the turn'; });
  yield { type: 'status', state: 'completed' };
}`,
  'env-observer.js': `
let turns = 0;
export default async function* () {
  turns++;
  const seen = { turns, leak: process.env.AGENT_LEAK ?? null, home: process.env.HOME ?? null };
  yield { type: 'status', state: 'completed', message: { parts: [{ kind: 'data', data: seen }] } };
}`,
};

t.test('module agents against the gateway process (gateway in a child process)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-proc-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  for (const [name, src] of Object.entries(AGENTS)) await writeFile(join(dir, name), src);
  const mod = (id: string) => ({ id, name: id, kind: 'module', entry: join(dir, `${id}.js`), timeoutMs: 15_000 });
  const configFile = join(dir, 'config.json');
  await writeFile(
    configFile,
    JSON.stringify({
      agents: [
        { id: 'echo', name: 'Echo', entry: 'echo', default: true },
        mod('hostile'),
        mod('env-setter'),
        mod('env-observer'),
        { ...mod('spawner') },
        { ...mod('spawner'), id: 'shell-user', name: 'shell-user', childProcesses: true },
      ],
      // one worker thread: a later turn runs where the earlier one did unless that worker was replaced
      pool: { minThreads: 1, maxThreads: 1 },
    }),
  );
  const server: ChildServer = await startChildServer({ dataDir: join(dir, 'data'), args: ['--config', configFile], env: { HOME: '/home/gw' } });
  t.teardown(() => server.kill('SIGKILL'));
  const limits = ['--per-minute', '100000', '--per-hour', '1000000'];
  const agentKey = (await createKeyCli(join(dir, 'data'), { extra: limits })).key;
  const otherKey = (await createKeyCli(join(dir, 'data'), { workspace: 'ws2', extra: limits })).key;
  const send = (agentId: string, text: string, key = agentKey) =>
    rpcAt(server.url, { key, method: 'message/send', params: msgB(text, { metadata: { agentId } }) });
  const status = (r: { json: any }) => r.json?.result?.status;
  const reason = (r: { json: any }) => status(r)?.message?.metadata?.reason;
  const text = (r: { json: any }): string => status(r)?.message?.parts?.[0]?.text ?? '';
  let exited: { code: number | null; signal: string | null } | null = null;
  void server.exited.then((e) => (exited = e));
  const gatewayServes = async (t: Test, why: string) => {
    const r = await send('echo', `another caller ${why}`, otherKey).catch((err: Error) => ({ json: { error: err.message } }));
    t.equal(status(r)?.state, 'completed', `another caller is served ${why}`);
    t.equal(exited, null, `the gateway process is still running ${why}`);
  };

  t.test('a signal to the gateway process fails the turn, naming the call', async (t) => {
    for (const [how, call] of [
      ['kill', 'process.kill(PID)'],
      ['kill-9', 'process.kill(PID, "SIGKILL")'],
      ['raw-kill', 'process._kill(PID, 9)'],
      ['kill-group', 'process.kill(0, "SIGWINCH")'],
      ['kill-parent', 'process.kill(PPID, "SIGWINCH")'],
      ['kill-caught', 'process.kill(PID, "SIGTERM")'],
    ] as const) {
      const r = await send('hostile', how).catch((err: Error) => ({ json: { error: err.message } }));
      t.equal(status(r)?.state, 'failed', `${how}: the turn fails`);
      t.equal(reason(r), 'agent_error', `${how}: agent_error`);
      t.match(text(r), /^process\._?kill\((\d+)(, .*)?\) was refused: it would signal the gateway's own process/, `${how}: the reason names the call`);
      t.equal(
        text(r)
          .replace(/\((\d+)/, (m, pid: string) => (pid === '0' ? m : Number(pid) === process.pid ? '(PPID' : '(PID'))
          .split(' was refused')[0],
        call,
        `${how}: ${call}`,
      );
      await gatewayServes(t, `after ${how}`);
    }
    t.equal(status(await send('hostile', 'probe')).state, 'completed', 'signal 0 (does it exist?) changes nothing and is let through');
  });

  t.test('a child process only for an agent whose config allows it', async (t) => {
    const refusal =
      /^child_process\.(execSync|execFileSync|spawn)\(\) was refused: agent spawner may not start processes \(a child process can signal the gateway's own process\); the operator allows it with "childProcesses": true in the agent's config$/;
    for (const how of ['echo', 'spawn', 'kill-gateway', 'kill-caught']) {
      const r = await send('spawner', how).catch((err: Error) => ({ json: { error: err.message } }));
      t.equal(status(r)?.state, 'failed', `${how}: the turn fails`);
      t.equal(reason(r), 'agent_error', `${how}: agent_error`);
      t.match(text(r), refusal, `${how}: the reason names the call and the setting`);
      await gatewayServes(t, `after spawner's ${how}`);
    }
    const raw = await send('spawner', 'binding');
    t.equal(reason(raw), 'agent_error', 'the raw spawn binding is refused too');
    t.match(text(raw), /^process\.binding\("spawn_sync"\) was refused: agent spawner may not start processes/);
    const echo = await send('shell-user', 'echo');
    t.equal(status(echo)?.state, 'completed', 'an agent allowed child processes runs one');
    t.equal(text(echo), 'from a child');
    t.equal(text(await send('shell-user', 'spawn')), 'spawned', 'and an async one');
    t.match(text(await send('spawner', 'echo')), refusal, 'the leave is per agent, not per worker: the next agent is refused again');
  });

  t.test('an agent cannot swap process.kill for the next agent on its worker', async (t) => {
    const r = await send('hostile', 'replace-kill');
    t.equal(reason(r), 'agent_error');
    t.match(text(r), /Cannot assign to read only property 'kill'/);
    t.match(text(await send('hostile', 'kill')), /process\.kill\(\d+\) was refused/, 'the next call meets the guard');
  });

  t.test('what Node already refuses in a worker, or ends only the worker (pinned, not our guard)', async (t) => {
    for (const [how, words] of [
      ['abort', /process\.abort\(\) is not supported in workers/],
      ['setuid', /process\.setuid\(\) is not supported in workers/],
      ['setgid', /process\.setgid\(\) is not supported in workers/],
      ['umask', /Setting process\.umask\(\) is not supported in workers/],
    ] as const) {
      const r = await send('hostile', how);
      t.equal(reason(r), 'agent_error', `${how}: agent_error`);
      t.match(text(r), words, `${how}: Node's words`);
    }
    const exit = await send('hostile', 'reallyExit');
    t.equal(reason(exit), 'worker_crash');
    t.match(text(exit), /worker exited with code: 3/);
    await gatewayServes(t, 'after those');
  });

  t.test("one turn's process.env changes do not reach the next turn on its worker", async (t) => {
    const first = status(await send('env-observer', 'look')).message.parts[0].data;
    t.same({ leak: first.leak, home: first.home }, { leak: null, home: '/home/gw' }, 'the env as the gateway got it');
    for (const how of ['set', 'replace', 'later']) {
      t.equal(status(await send('env-setter', how)).state, 'completed', `${how}: the changing turn keeps its result`);
      const seen = status(await send('env-observer', 'look')).message.parts[0].data;
      t.same({ leak: seen.leak, home: seen.home }, { leak: null, home: '/home/gw' }, `${how}: the next turn sees the env as it was`);
    }
    const last = status(await send('env-observer', 'look')).message.parts[0].data;
    t.equal(last.turns, first.turns + 4, 'and on the same worker: it was put back, not replaced');
  });
});

t.test('childProcesses is a module agent setting: on any other agent the config is refused naming it', async (t) => {
  t.throws(
    () => parseConfig({ agents: [{ id: 'e', name: 'E', entry: 'echo', childProcesses: true }] }),
    /agents\.0\.childProcesses: only a module agent runs code of its own that could start a process/,
  );
  t.throws(() => parseConfig({ agents: [{ id: 'm', name: 'M', kind: 'module', entry: '/x.js', childProcesses: 'yes' }] }), /agents\.0\.childProcesses/);
});
