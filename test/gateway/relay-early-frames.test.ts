// What a relay sends between its hello and the gateway's welcome (while the hello is being stored) is held for the live
// session: a few health frames are taken once it is live, but a relay flooding that gap is disconnected with a logged
// reason rather than held without bound. A raw `ws` client is the relay; hello and what follows leave in one go, so
// the gateway reads them all while the hello is still being stored.
import t from 'tap';
import { MAX_EARLY_FRAMES } from '../../src/gateway/relay/handshake.js';
import { startTestGateway } from '../support/gateway.js';
import { registerRelay } from '../support/relay-world.js';
import { openTunnel } from '../support/tunnel-client.js';

t.setTimeout(60_000);

const card = { name: 'local-echo', description: 'local', skills: [], streaming: false };

/** `p`, or undefined after `ms` (a bound on a wait that fails the test, never a sleep it passes by) */
const within = async <T>(p: Promise<T>, ms = 10_000): Promise<T | undefined> => {
  let bound: NodeJS.Timeout | undefined;
  const r = await Promise.race([p, new Promise<undefined>((res) => (bound = setTimeout(() => res(undefined), ms)))]);
  clearTimeout(bound);
  return r;
};

t.test('a few health frames before the welcome are taken; a relay flooding that gap is disconnected', async (t) => {
  const logs: string[] = [];
  const gw = await startTestGateway({ log: (msg, f) => logs.push(`${msg} ${JSON.stringify(f ?? {})}`) });
  t.teardown(() => gw.close());
  const { relayKey, key } = await registerRelay(gw, { workspace: 'ws1', name: 'home', agents: ['local-echo'] });
  const tunnel = async () => {
    const up = await openTunnel({ url: gw.url, key: relayKey.key });
    if (!up.ok) throw new Error(`upgrade refused: ${up.status}`);
    t.teardown(() => up.client.ws.terminate());
    return up.client;
  };
  const listed = async () => (await gw.rpc({ method: 'agents/list', key, params: {} })).json.result.agents.find((x: { id: string }) => x.id === 'local-echo');

  const few = await tunnel();
  few.send({ t: 'hello', v: 1, workspace: 'ws1', agents: [card] });
  for (const up of [true, false, true, false]) few.send({ t: 'health', agents: [{ name: 'local-echo', up, ...(!up && { error: 'ECONNREFUSED' }) }] });
  t.match(await within(few.next((f) => f.t === 'welcome' || f.t === 'error')), { t: 'welcome' }, 'a relay sending a few is welcomed');
  t.match(await listed(), { online: true, health: { up: false } }, 'and the last of them holds');
  few.close();
  await within(few.closed);

  const client = await tunnel();
  client.send({ t: 'hello', v: 1, workspace: 'ws1', agents: [card] });
  for (let i = 0; i < 20 * MAX_EARLY_FRAMES; i++) client.send({ t: 'health', agents: [{ name: 'local-echo', up: i % 2 === 0 }] });
  const error = await within(client.next((f) => f.t === 'error'));
  t.match(error?.message, /frames or \d+ bytes sent before its welcome/, 'the relay is told why');
  t.equal((await within(client.closed))?.code, 1008, 'and disconnected');
  t.ok(
    logs.some((l) => l.startsWith('relay disconnected') && /before its welcome/.test(l)),
    'with a logged reason',
  );
  t.equal((await listed())?.online, false, 'it does not stay connected');
});
