// What a remote says in its own words, by real node:http remotes on loopback: a JSON-RPC error's message of 100,000
// characters fails our caller's task with the first 1,000 of them (an OAuth token endpoint's error_description the
// same); a card's name, and an error quoting a card's field,
// holding a terminal escape and newlines and thousands of characters, show in `connections status` as one line each,
// cut short, so a remote cannot forge a line of the operator's listing or drive their terminal; nor through what
// `a2a-gateway call` prints (its lines kept, other control characters as U+FFFD).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import type { CardServer } from '../support/card-server.js';
import { testClient, userMessage } from '../support/a2a-client.js';
import { runCli } from '../support/cli.js';
import type { TestGateway } from '../support/gateway.js';
import { remoteStage, sendGo } from '../support/remote-stage.js';

const WS = 'ws1';
/** a line that would pass for the status's own, after a terminal escape that clears the screen */
const FORGED = '\u001b[2J\nstate                  ready';
const SHOWN = '\ufffd[2J\ufffdstate                  ready';

let s: CardServer;
let ours: TestGateway;
let key: string;

/** The card of the remote staged as `route`, named `name`. */
const card = (route: string, name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: '',
  version: '1',
  url: `${s.url}/${route}/rpc`,
  protocolVersion: '0.3.0',
  capabilities: {},
  ...extra,
});

t.before(async () => {
  const clock = new ManualClock(Date.now());
  ({ s, ours, key } = await remoteStage(t, {
    clock,
    workspace: WS,
    remotes: [
      {
        name: 'errs',
        card: () => card('errs', 'errs'),
        answer: (_h, body) => ({
          status: 200,
          body: { jsonrpc: '2.0', id: JSON.parse(body).id, error: { code: -32000, message: `\u001b[31m${'E'.repeat(100_000)}` } },
        }),
      },
      {
        name: 'named',
        card: () => card('named', `named${FORGED}${'x'.repeat(5_000)}`),
        answer: (_h, body) => ({
          status: 200,
          body: { jsonrpc: '2.0', id: JSON.parse(body).id, result: { kind: 'task', id: 'r1', contextId: 'c1', status: { state: 'completed' } } },
        }),
      },
      {
        name: 'shouty',
        card: () => card('shouty', 'shouty'),
        answer: (_h, body) => ({
          status: 200,
          body: {
            jsonrpc: '2.0',
            id: JSON.parse(body).id,
            result: {
              kind: 'task',
              id: `r1${FORGED}`,
              contextId: 'c1',
              status: { state: 'completed', message: { kind: 'message', role: 'agent', messageId: 'm', parts: [{ kind: 'text', text: `hi${FORGED}\r` }] } },
            },
          },
        }),
      },
      { name: 'bad', card: () => card('bad', 'bad', { protocolVersion: `9${FORGED}${'v'.repeat(5_000)}` }), answer: () => ({ status: 500 }) },
    ],
  }));
});

const send = (agentId: string, extra?: Record<string, unknown>) => sendGo({ ours, key }, agentId, extra);

/** `connections status NAME` as the operator reads it (text), and its JSON. */
async function status(name: string) {
  const args = ['connections', 'status', name, '--data-dir', ours.dataDir, '--workspace', WS];
  const text = await runCli(args, { secret: ours.gw.secret });
  const json = await runCli([...args, '--json'], { secret: ours.gw.secret });
  return { text: text.stdout, json: JSON.parse(json.stdout || '{}').status };
}

t.test("a remote's JSON-RPC error message is cut at 1,000 characters in our failed task", async (t) => {
  const task = await send('errs');
  t.equal(task?.status?.state, 'failed');
  t.equal(task?.status?.message?.parts?.[0]?.text, `the remote answered message/send with error -32000: \u001b[31m${'E'.repeat(994)}…`);
});

t.test("a remote card's name and an error quoting its card are one printable line each, cut short", async (t) => {
  t.equal((await send('named'))?.status?.state, 'completed');
  const named = await status('named');
  t.equal(named.json?.remote_name, `named${SHOWN}${'x'.repeat(200 - 5 - SHOWN.length - 1)}…`);
  t.notOk(named.text.includes('\u001b'), 'no terminal escape reaches the terminal');
  t.equal(named.text.split('\n').filter((l) => /^\s*state\b/.test(l)).length, 1, `one state line: ${named.text.slice(0, 600)}`);

  t.equal((await send('bad'))?.status?.state, 'failed');
  const bad = await status('bad');
  t.match(bad.json?.last_error, `names protocolVersion '9${SHOWN}vvv`);
  t.ok([...bad.json.last_error].length <= 1_000, `at most 1,000 characters: ${[...bad.json.last_error].length}`);
  t.notOk(bad.text.includes('\u001b'), 'no terminal escape reaches the terminal');
  t.equal(bad.text.split('\n').filter((l) => /^\s*state\b/.test(l)).length, 1, `one state line: ${bad.text.slice(0, 600)}`);
});

t.test("an OAuth token endpoint's error_description is cut at 1,000 characters", async (t) => {
  s.route.set('/errs/token', () => ({ status: 400, body: { error: 'invalid_client', error_description: 'D'.repeat(100_000) } }));
  const c = testClient();
  t.teardown(() => c.close());
  const endpoint = {
    url: `${s.url}/errs`,
    credentials: { kind: 'oauth' as const, tokenUrl: `${s.url}/errs/token`, clientId: 'us', clientSecret: 'our-secret-value' },
  };
  const err = await c.send({ endpoint, message: userMessage('x') }).catch((e: unknown) => e);
  t.match(err, { code: 'token_failed' });
  t.equal((err as Error).message, `the OAuth token endpoint answered HTTP 400: invalid_client (${'D'.repeat(999 - 'invalid_client ('.length)}…`);
});

t.test('`a2a-gateway call` prints what the remote says without its terminal escapes', async (t) => {
  const cfg = join(ours.dataDir, 'cli-config.json');
  await writeFile(cfg, JSON.stringify({ dataDir: ours.dataDir, push: { allowlist: ['127.0.0.1'] } }));
  const said = await runCli(['call', 'shouty', 'go', '--workspace', WS, '--config', cfg], { secret: ours.gw.secret });
  t.equal(said.code, 0, said.stderr);
  t.notOk(said.stdout.includes('\u001b') || said.stdout.includes('\r'), 'no escape or carriage return reaches the terminal');
  t.match(said.stdout, 'task r1\ufffd[2J\nstate                  ready: completed\n', 'the ids: escapes as U+FFFD, lines kept');
  t.match(said.stdout, '\nhi\ufffd[2J\nstate                  ready\ufffd\n', 'the summary: escapes as U+FFFD, lines kept');
  const failed = await runCli(['call', 'errs', 'go', '--workspace', WS, '--config', cfg], { secret: ours.gw.secret });
  t.equal(failed.code, 1);
  t.notOk(failed.stderr.includes('\u001b'), 'no terminal escape in the error either');
});
