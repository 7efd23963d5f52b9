// A module agent's ctx.call to a fake remote (a real node:http server on loopback) with a file part: its name is bounded
// at 1,024 characters and its type at 256, as a caller's and an agent's own output are; past them the call is refused
// naming the field and nothing reaches the remote. At the bounds the part goes out as written.
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import type { CardServer } from '../support/card-server.js';
import { msgB, type TestGateway } from '../support/gateway.js';
import { remoteStage } from '../support/remote-stage.js';

const WS = 'ws1';
const CALLER = fileURLToPath(new URL('../fixtures/agents/caller.js', import.meta.url));

const fileCall = (file: Record<string, unknown>) => ['peer', { parts: [{ kind: 'file', file: { bytes: 'aGk=', ...file } }] }];
const CASES = {
  'long-name': fileCall({ name: 'n'.repeat(1025), mimeType: 'text/plain' }),
  'long-type': fileCall({ name: 'a.txt', mimeType: `text/${'x'.repeat(252)}` }),
  'at-bounds': fileCall({ name: 'n'.repeat(1024), mimeType: `text/${'x'.repeat(251)}` }),
};

let s: CardServer;
let ours: TestGateway;
let key: string;

t.before(async () => {
  const clock = new ManualClock(Date.now());
  ({ s, ours, key } = await remoteStage(t, {
    clock,
    workspace: WS,
    remotes: [
      {
        name: 'peer',
        card: () => ({ name: 'peer', description: '', version: '1', url: `${s.url}/peer/rpc`, protocolVersion: '0.3.0', capabilities: {} }),
        answer: (_h, body) => ({
          status: 200,
          body: { jsonrpc: '2.0', id: JSON.parse(body).id, result: { kind: 'task', id: 'r1', contextId: 'c1', status: { state: 'completed' } } },
        }),
      },
    ],
    agents: Object.entries(CASES).map(([id, args]) => ({
      id,
      name: id,
      kind: 'module' as const,
      entry: CALLER,
      workspace: WS,
      options: { mode: 'args', args },
    })),
  }));
});

/** What the agent reported of its call (the caller fixture's `call` artifact). */
async function callBy(agentId: string) {
  const task = (await ours.rpc({ method: 'message/send', key, params: msgB('go', { metadata: { agentId } }) })).json.result;
  return task?.artifacts?.find((a: any) => a.name === 'call')?.parts?.[0]?.data;
}
const sends = () => s.seen.filter((r) => r.path === '/peer/rpc');

t.test('a file name or type past its bound is refused naming the field, nothing reaching the remote; at the bounds it goes out', async (t) => {
  t.match(await callBy('long-name'), { error: { code: 'invalid_request', message: 'ctx.call refused: message.parts.0.file.name: at most 1024 characters' } });
  t.match(await callBy('long-type'), {
    error: { code: 'invalid_request', message: 'ctx.call refused: message.parts.0.file.mimeType: at most 256 characters' },
  });
  t.same(sends(), [], 'the remote was sent nothing');
  // at the bounds, the part goes out as written
  const got = await callBy('at-bounds');
  t.equal(got?.task?.status?.state, 'completed', JSON.stringify(got).slice(0, 300));
  const [sent] = sends();
  const file = JSON.parse(sent?.body ?? '{}').params?.message?.parts?.[0]?.file;
  t.equal(file?.name, 'n'.repeat(1024));
  t.equal(file?.mimeType, `text/${'x'.repeat(251)}`);
});
