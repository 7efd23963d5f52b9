// Issue 6 hardening of the task path: nesting bound, store write failures, redacted failure messages, long timers,
// messageId and agent selection checks. Each test is named after the issue item it covers.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { createKeyCli, rpcAt, startChildServer, waitFor } from '../support/child-server.js';
import { msgB, startTestGateway } from '../support/gateway.js';
import { openSse } from '../support/sse.js';

t.setTimeout(240_000);

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/agents/${name}`, import.meta.url));

const nested = (levels: number): Record<string, unknown> => {
  let v: Record<string, unknown> = { leaf: 1 };
  for (let i = 1; i < levels; i++) v = { d: v };
  return v;
};

t.test('server as a child process, with module agents', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-hardening-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const configFile = join(dir, 'config.json');
  await writeFile(
    configFile,
    JSON.stringify({
      agents: [
        { id: 'echo', name: 'Echo', entry: 'echo', default: true },
        { id: 'slow', name: 'Slow', entry: 'slow' },
        { id: 'unstorable', name: 'Unstorable', kind: 'module', entry: fixture('unstorable.js') },
        { id: 'deep', name: 'Deep output', kind: 'module', entry: fixture('deep-output.js'), timeoutMs: 120_000 },
        { id: 'leaky', name: 'Leaky', kind: 'module', entry: fixture('leaky-error.js') },
        { id: 'missing', name: 'Broken', kind: 'module', entry: fixture('broken-import.js') },
      ],
    }),
  );
  const server = await startChildServer({ dataDir: join(dir, 'data'), args: ['--config', configFile] });
  t.teardown(() => server.kill('SIGKILL'));
  const { key } = await createKeyCli(join(dir, 'data'), { extra: ['--per-minute', '100000', '--per-hour', '1000000'] });
  const call = (method: string, params: unknown) => rpcAt(server.url, { key, method, params });
  const stillServes = async (t: Test, why: string) => {
    t.equal(server.proc.exitCode, null, `the server is alive ${why}`);
    const r = await call('message/send', msgB(`echo ${why}`));
    t.equal(r.json.result?.status?.state, 'completed', `the next send works ${why}`);
  };

  t.test('item 1: a data part nested 2,000 levels deep is refused with -32602 naming the limit; nothing is stored', async (t) => {
    const params = { message: { kind: 'message', role: 'user', messageId: 'deep-1', parts: [{ kind: 'data', data: nested(2000) }] } };
    const r = await call('message/send', params);
    t.equal(r.status, 200);
    t.equal(r.json.error?.code, -32602);
    t.match(r.json.error?.message, /deeper than 64 levels/);
    t.equal(r.json.error?.data?.limit, 64);
    t.match(r.json.error?.data?.path, /^params\.message\.parts\.0\.data\.d\.d/);
    const a = await call('tasks/send', { id: 'deep-rev-a', message: { role: 'user', parts: [{ type: 'data', data: nested(2000) }] } });
    t.equal(a.json.error?.code, -32602, 'rev A too');
    const got = await call('tasks/get', { id: 'deep-rev-a' });
    t.equal(got.json.error?.code, -32001, 'no task was created');
    await stillServes(t, 'after deep bodies');
  });

  t.test('item 1: nesting within the limit is accepted', async (t) => {
    const r = await call('message/send', { message: { kind: 'message', role: 'user', messageId: 'ok-1', parts: [{ kind: 'data', data: nested(50) }] } });
    t.equal(r.json.result?.status?.state, 'completed');
  });

  t.test('item 1: output the store cannot write (a BigInt past 64 bits) never reaches it: the turn fails, never the process', async (t) => {
    // it used to reach the store and fail the call with -32603 store_write_failed; an agent's output is now refused
    // as not JSON data before anything stores it (agent-output-values.test.ts)
    const r = await call('message/send', msgB('go', { metadata: { agentId: 'unstorable' } }));
    t.equal(r.json.result?.status?.state, 'failed');
    t.match(JSON.stringify(r.json.result?.status?.message), /a bigint at event\.artifact\.parts\.0\.data\.big, which is not JSON data/);
    await stillServes(t, 'after unstorable output');
    await waitFor(
      'the log line',
      async () => (/"agent":"unstorable".*"reason":"agent_protocol".*"msg":"agent run failed"/.test(server.output().stderr) ? true : undefined),
      { timeoutMs: 5000 },
    );
    t.pass('the log says what happened');
  });

  t.test('an agent whose output nests 2,000 levels deep fails its task at once (agent_protocol), long before its deadline', async (t) => {
    const started = Date.now();
    const r = await call('message/send', msgB('go', { metadata: { agentId: 'deep' } }));
    t.equal(r.json.result?.status?.state, 'failed');
    t.match(JSON.stringify(r.json.result?.status?.message), /nested deeper than/);
    t.ok(Date.now() - started < 60_000, 'not left waiting for the 120 s deadline');
    await stillServes(t, 'after deep agent output');
  });

  t.test('item 12: agent failure messages carry no server paths; the log keeps them', async (t) => {
    const leaky = await call('message/send', msgB('go', { metadata: { agentId: 'leaky' } }));
    t.equal(leaky.json.result?.status?.state, 'failed');
    const text: string = leaky.json.result?.status?.message?.parts?.[0]?.text ?? '';
    t.match(text, /cannot read <path>/, 'the failure is still said in words');
    t.notMatch(text, /\/srv|\/opt|file:|secret-config/, 'no path in the status');
    const missing = await call('message/send', msgB('go', { metadata: { agentId: 'missing' } }));
    t.equal(missing.json.result?.status?.message?.metadata?.reason, 'agent_not_found');
    const missingText: string = missing.json.result?.status?.message?.parts?.[0]?.text ?? '';
    t.match(missingText, /failed to load/);
    t.notMatch(missingText, new RegExp(dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'not the data dir');
    t.notMatch(missingText, /broken-import|no-such-dependency\.js'|\/work\/|fixtures/, 'not the module path');
    const got = await call('tasks/get', { id: leaky.json.result.id });
    t.notMatch(JSON.stringify(got.json), /\/srv|file:/, 'nor in the stored task');
    await waitFor('the log line', async () => (/secret-config/.test(server.output().stderr) ? true : undefined), { timeoutMs: 5000 });
    t.pass('the log keeps the original message');
  });

  t.test('item 14: a step of 2^31 ms or more does not complete at once (long timers are chained)', async (t) => {
    const r = await call('message/send', {
      message: {
        kind: 'message',
        role: 'user',
        messageId: 'long-1',
        parts: [{ kind: 'data', data: { ms: 2 ** 33, steps: 2 } }],
        metadata: { agentId: 'slow' },
      },
      configuration: { blocking: false },
    });
    const id: string = r.json.result.id;
    // an overflowing timer fires after 1 ms: by a poll later the two steps would be done
    await new Promise((res) => setTimeout(res, 300));
    const got = await call('tasks/get', { id });
    t.equal(got.json.result?.status?.state, 'working', 'still working');
    t.equal(got.json.result?.artifacts?.length, 0, 'not a step done');
    const c = await call('tasks/cancel', { id });
    t.equal(c.json.result?.status?.state, 'canceled');
  });
});

t.test('in process', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();

  t.test('item 17: a rev B message without messageId is -32602 naming the field; rev A needs none', async (t) => {
    const r = await gw.rpc({ key, method: 'message/send', params: { message: { kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } } });
    t.equal(r.json.error?.code, -32602);
    t.equal(r.json.error?.data?.path, 'params.message.messageId');
    const s = await openSse({
      url: gw.url,
      key,
      method: 'message/stream',
      params: { message: { kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } },
    });
    const frames = (await s.all()).filter((f) => f.data);
    t.match(frames[0]?.data?.error ?? {}, { code: -32602, data: { path: 'params.message.messageId' } }, 'the streaming send too (as its SSE error event)');
    const a = await gw.rpc({ key, method: 'tasks/send', params: { id: 'a-no-message-id', message: { role: 'user', parts: [{ type: 'text', text: 'hi' }] } } });
    t.equal(a.json.result?.status?.state, 'completed', 'rev A keeps its own rules');
  });

  t.test('item 10: a non-string metadata.agentId or skillId is -32602, not the default agent', async (t) => {
    for (const [where, bad] of [
      ['params.message.metadata.agentId', { message: { ...msgB('x').message, metadata: { agentId: 42 } } }],
      ['params.message.metadata.agentId', { message: { ...msgB('x').message, metadata: { agentId: { id: 'echo' } } } }],
      ['params.metadata.agentId', { ...msgB('x'), metadata: { agentId: true } }],
      ['params.message.metadata.skillId', { message: { ...msgB('x').message, metadata: { skillId: ['echo'] } } }],
    ] as const) {
      const r = await gw.rpc({ key, method: 'message/send', params: bad });
      t.equal(r.json.error?.code, -32602, `${where}: refused`);
      t.equal(r.json.error?.data?.path, where, `${where}: named`);
    }
  });
});
