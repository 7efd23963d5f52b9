// Client mode from the agents' side, end to end: a module agent's ctx.call over a real connection (awaited and streamed,
// refused when the connection does not name it), and `a2a-gateway call` from the command line; no secret in any log
// line or CLI output.
import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addConnection } from '../../src/runtime/connection-admin.js';
import { parseAllowlist } from '../../src/runtime/net/guard.js';
import { runCli } from '../support/cli.js';
import { msgB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startSdkRemote, requireHeader, type SdkRemote } from '../support/sdk-remote.js';

const WS = 'ws1';
const CALLER = fileURLToPath(new URL('../fixtures/agents/caller.js', import.meta.url));
const BEARER = 'bearer-secret-Zq81nV0p';
const ALLOW = ['127.0.0.1'];

let sdk: SdkRemote;
let ours: TestGateway;
let key: string;
const logLines: string[] = [];

const EXT = ['https://ext.example/a2a/trace/v1', 'https://ext.example/a2a/cost/v2'];
const caller = (id: string, options: Record<string, unknown>) => ({ id, name: id, kind: 'module' as const, entry: CALLER, workspace: WS, options });

t.before(async () => {
  sdk = await startSdkRemote({ before: [requireHeader('authorization', `Bearer ${BEARER}`)] });
  ours = await startTestGateway({
    log: (msg, fields) => logLines.push(`${msg} ${JSON.stringify(fields ?? {})}`),
    config: {
      push: { allowlist: ALLOW },
      // the bad-token connection fails discovery from the start and retries on real timers: on a slow machine five
      // failures in a row could open its circuit before its test runs (circuit_open, not unavailable). The circuit has
      // its own tests on injected timers (connection-health); here it must stay closed
      connections: { circuitFailures: 1_000 },
      agents: [
        caller('asker', { connection: 'sdk' }),
        caller('streamer', { mode: 'args', args: ['sdk', 'streamed hello', { stream: true }] }),
        caller('extender', { mode: 'args', args: ['sdk', { parts: [{ kind: 'text', text: 'with extensions' }], extensions: EXT }] }),
        caller('outsider', { connection: 'sdk' }),
        caller('wrong-key', { connection: 'sdk-bad-token' }),
      ],
    },
  });
  key = (await ours.key({ workspace: WS, trust: 'admin' })).key;
  const deps = { connections: ours.gw.store.connections, secret: ours.gw.secret, clock: { now: () => Date.now() }, allowlist: parseAllowlist(ALLOW) };
  await addConnection(deps, {
    workspace: WS,
    name: 'sdk',
    url: sdk.url,
    credentials: { kind: 'bearer', token: BEARER },
    trust: 'admin',
    agents: ['asker', 'streamer', 'extender'],
  });
  await addConnection(deps, { workspace: WS, name: 'sdk-bad-token', url: sdk.url, credentials: { kind: 'bearer', token: `${BEARER}-wrong` }, trust: 'admin' });
});

t.teardown(async () => {
  await ours.close();
  await sdk.close();
});

/** The data the caller fixture reported (its artifact named `call`). */
const reportOf = (task: any) => task.artifacts.find((a: any) => a.name === 'call')?.parts[0]?.data;

t.test("a module agent's ctx.call reaches the remote over the connection and gets its task back", async (t) => {
  const r = await ours.rpc({ method: 'message/send', key, params: msgB('hello from a module', { metadata: { agentId: 'asker' } }) });
  t.equal(r.json.result.status.state, 'completed', JSON.stringify(r.json));
  const got = reportOf(r.json.result);
  t.equal(got.task.status.state, 'completed');
  t.equal(got.task.artifacts[0].parts[0].text, 'hello from a module');
  const results = await ours.gw.store.results.list({ workspace: WS, connection: 'sdk' });
  t.ok(
    results.some((x) => x.agentId === 'asker' && x.summary.includes('hello from a module')),
    'the call left its summary',
  );
});

t.test('a streamed ctx.call yields the remote events in order, the final task last', async (t) => {
  const r = await ours.rpc({ method: 'message/send', key, params: msgB('go', { metadata: { agentId: 'streamer' } }) });
  const reports = r.json.result.artifacts.filter((a: any) => a.name === 'call').map((a: any) => a.parts[0].data.event);
  t.ok(reports.length >= 2, JSON.stringify(r.json.result.artifacts));
  t.ok(
    reports.some((e: any) => e.kind === 'artifact' && e.artifact.parts[0].text === 'streamed hello'),
    'the artifact came as it streamed',
  );
  const last = reports[reports.length - 1];
  t.equal(last.kind, 'task');
  t.equal(last.task.status.state, 'completed');
  t.ok(sdk.calls('message/stream').length >= 1, 'the remote streamed');
});

t.test("a module agent's ctx.call with extensions: the remote receives them in the message", async (t) => {
  const r = await ours.rpc({ method: 'message/send', key, params: msgB('go', { metadata: { agentId: 'extender' } }) });
  t.equal(r.json.result.status.state, 'completed', JSON.stringify(r.json));
  t.equal(reportOf(r.json.result).task?.status.state, 'completed', 'the call succeeded');
  const sent = sdk.calls().filter((c) => c.json.params?.message?.parts?.[0]?.text === 'with extensions');
  t.equal(sent.length, 1, 'the remote got the message once');
  t.strictSame(sent[0]!.json.params.message.extensions, EXT, 'with the extensions the agent gave');
});

t.test('an agent the connection does not name gets not_permitted, and nothing leaves', async (t) => {
  const before = sdk.calls().length;
  const r = await ours.rpc({ method: 'message/send', key, params: msgB('sneak', { metadata: { agentId: 'outsider' } }) });
  const got = reportOf(r.json.result);
  t.equal(got.error.code, 'not_permitted');
  t.match(got.error.message, /agent 'outsider' may not use connection 'sdk'/);
  t.equal(sdk.calls().length, before);
});

t.test('a remote refusing our credentials: the agent learns it is unauthorized', async (t) => {
  const r = await ours.rpc({ method: 'message/send', key, params: msgB('knock', { metadata: { agentId: 'wrong-key' } }) });
  const got = reportOf(r.json.result);
  // the card is read with the credentials too, so discovery already fails, and the connection backs off
  t.equal(got.error.code, 'unavailable');
  t.match(got.error.message, /refused our credentials \(HTTP 401\)/);
  t.notOk(got.error.message.includes(BEARER));
});

t.test('a2a-gateway call sends a task from the command line and prints the result; --stream prints events as they come', async (t) => {
  const cfg = join(ours.dataDir, 'cli-config.json');
  await writeFile(cfg, JSON.stringify({ dataDir: ours.dataDir, push: { allowlist: ALLOW } }));
  const env = {};
  const plain = await runCli(['call', 'sdk', 'from the shell', '--workspace', WS, '--config', cfg], { secret: ours.gw.secret, env });
  t.equal(plain.code, 0, plain.stderr);
  t.match(plain.stdout, /: completed/, plain.stdout);
  t.match(plain.stdout, /from the shell/);

  const streamed = await runCli(['call', 'sdk', 'streaming shell', '--workspace', WS, '--config', cfg, '--stream', '--json'], { secret: ours.gw.secret });
  t.equal(streamed.code, 0, streamed.stderr);
  const lines = streamed.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.ok(
    lines.some((l) => l.event?.kind === 'artifact' && l.event.artifact.parts[0].text === 'streaming shell'),
    'the artifact event printed',
  );
  t.equal(lines[lines.length - 1].task.status.state, 'completed', 'the final task last');

  const refused = await runCli(['call', 'sdk', 'x', '--workspace', WS, '--config', cfg, '--agent', 'outsider'], { secret: ours.gw.secret });
  t.equal(refused.code, 1);
  t.match(refused.stderr, /not_permitted/);

  const missing = await runCli(['call', 'nope', 'x', '--workspace', WS, '--config', cfg], { secret: ours.gw.secret });
  t.equal(missing.code, 1);
  t.match(missing.stderr, /no connection 'nope' in workspace 'ws1'/);

  for (const out of [plain, streamed, refused, missing]) t.notOk(`${out.stdout}${out.stderr}`.includes(BEARER), 'no secret in CLI output');
});

t.test('no secret in any log line', async (t) => {
  for (const line of logLines) t.notOk(line.includes(BEARER), `log line without the secret: ${line.slice(0, 80)}`);
  t.pass(`${logLines.length} log lines checked`);
});
