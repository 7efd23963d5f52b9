// A remote (a real node:http server on loopback) whose answer holds lone UTF-16 surrogates (a `\uD800`-style escape
// without its pair) in its text, metadata keys and values, plainly answered and streamed: on LMDB and on Redis alike,
// our caller is answered, a later read shows and the stored result keeps the same text, each lone surrogate read as
// one U+FFFD; a well-formed escaped pair is kept as sent.
import t from 'tap';
import { addConnection } from '../../src/runtime/connection-admin.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { parseAllowlist } from '../../src/runtime/net/guard.js';
import { cardServer, type CardServer, sseAnswer } from '../support/card-server.js';
import { msgB, startTestGateway } from '../support/gateway.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';

/** as the remote sends it (JSON.stringify writes each lone surrogate as an escape) */
const SENT = { text: 'a\ud800b\udc00c \ud83d\ude00', key: 'k\udbff', value: 'v\udfff' };
/** as every reader on our side must see it */
const SEEN = { text: 'a\ufffdb\ufffdc \u{1F600}', key: 'k\ufffd', value: 'v\ufffd' };

const message = { kind: 'message', role: 'agent', messageId: 'm-r', parts: [{ kind: 'text', text: SENT.text }], metadata: { [SENT.key]: SENT.value } };
const artifact = { artifactId: 'a1', parts: [{ kind: 'text', text: SENT.text }] };
const task = { kind: 'task', id: 'mine', contextId: 'c1', status: { state: 'completed', message }, artifacts: [artifact] };

function remotes(s: CardServer) {
  const card = (name: string, streaming: boolean) => ({
    status: 200,
    body: { name, description: '', version: '1', url: `${s.url}/${name}/rpc`, protocolVersion: '0.3.0', capabilities: { streaming } },
  });
  s.route.set('/plain/.well-known/agent-card.json', () => card('plain', false));
  s.route.set('/plain/rpc', (_h, body) => ({ status: 200, body: { jsonrpc: '2.0', id: JSON.parse(body).id, result: task } }));
  s.route.set('/streamed/.well-known/agent-card.json', () => card('streamed', true));
  s.route.set('/streamed/rpc', (_h, body) => {
    const id = JSON.parse(body).id;
    const events = [
      { ...task, status: { state: 'working' }, artifacts: [] },
      { kind: 'artifact-update', taskId: 'mine', contextId: 'c1', artifact },
      { kind: 'status-update', taskId: 'mine', contextId: 'c1', status: { state: 'completed', message }, final: true },
    ];
    return sseAnswer(id, events);
  });
}

for (const store of ['lmdb', 'redis'] as const) {
  t.test(`${store}: a remote's lone surrogates read as U+FFFD by every reader`, async (t) => {
    const s = await cardServer(t);
    remotes(s);
    const clock = new ManualClock(Date.now());
    const prefix = testPrefix('remote-surrogates');
    const gw = await startTestGateway({
      clock,
      timers: clock,
      config: {
        ...(store === 'redis' && { store: 'redis' as const, redisUrl: REDIS_URL, redisPrefix: prefix }),
        push: { allowlist: ['127.0.0.1'] },
        agents: ['plain', 'streamed'].map((id) => ({ id, name: id, kind: 'remote' as const, connection: id, workspace: 'ws1' })),
      },
    });
    t.teardown(async () => {
      await gw.close();
      if (store === 'redis') await cleanupPrefix(REDIS_URL, prefix);
    });
    const key = (await gw.key({ workspace: 'ws1', trust: 'admin' })).key;
    const deps = { connections: gw.gw.store.connections, secret: gw.gw.secret, clock, allowlist: parseAllowlist(['127.0.0.1']) };
    for (const name of ['plain', 'streamed'])
      await addConnection(deps, { workspace: 'ws1', name, url: `${s.url}/${name}`, credentials: { kind: 'none' }, trust: 'admin', storeResults: true });

    for (const agentId of ['plain', 'streamed']) {
      const sent = (await gw.rpc({ method: 'message/send', key, params: msgB('go', { metadata: { agentId } }) })).json.result;
      const read = (await gw.rpc({ method: 'tasks/get', key, params: { id: sent?.id } })).json.result;
      for (const [what, got] of [
        ['the answer', sent],
        ['a later read', read],
      ] as const) {
        t.equal(got?.status?.state, 'completed', `${agentId}: ${JSON.stringify(got).slice(0, 300)}`);
        t.equal(got?.status?.message?.parts?.[0]?.text, SEEN.text, `${agentId}: ${what}: the status message's text`);
        t.same(got?.status?.message?.metadata, { [SEEN.key]: SEEN.value }, `${agentId}: ${what}: its metadata key and value`);
        t.equal(got?.artifacts?.[0]?.parts?.[0]?.text, SEEN.text, `${agentId}: ${what}: the artifact's text`);
      }
      const [kept] = await gw.gw.store.results.list({ workspace: 'ws1', connection: agentId });
      t.equal(kept?.summary, `${SEEN.text}\n${SEEN.text}`, `${agentId}: the stored summary`);
      const raw = kept?.raw as any;
      t.equal(raw?.status?.message?.parts?.[0]?.text, SEEN.text, `${agentId}: the stored raw result`);
      t.same(raw?.status?.message?.metadata, { [SEEN.key]: SEEN.value }, `${agentId}: the stored raw result's metadata`);
      t.equal(raw?.artifacts?.[0]?.parts?.[0]?.text, SEEN.text, `${agentId}: the stored raw artifact`);
    }
  });
}
