// Test support for the relay end to end: a relay connection registered on a real test gateway (its key, a caller's
// admin key, trust per announced agent), the agents/list lookups the tests assert on, and a gateway serving TLS with a
// certificate made with openssl (its CA written to a file for the relay's `ca_file`).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addRelay, setRelayAgent } from '../../src/runtime/relay-admin.js';
import type { Test } from 'tap';
import { type Certs, makeCerts } from './certs.js';
import { msgB, type TestGateway } from './gateway.js';
import { connectRelay } from './tunnel-client.js';

export interface RegisteredRelay {
  /** the relay's own key (its secret and id) */
  relayKey: { key: string; id: string };
  /** a caller's key of the workspace, trust admin */
  key: string;
}

/**
 * Registers relay `name` for `workspace` and sets `trust` (admin by default: streaming and cancel need more than the
 * default execute) on each agent it will announce, before its hello.
 */
export async function registerRelay(gw: TestGateway, o: { workspace: string; name?: string; agents: string[]; trust?: string }): Promise<RegisteredRelay> {
  const relayKey = await gw.key({ workspace: o.workspace, trust: 'execute' });
  const key = (await gw.key({ workspace: o.workspace, trust: 'admin' })).key;
  const deps = { relays: gw.gw.store.relays, keys: gw.gw.store.keys, clock: { now: () => Date.now() } };
  const name = o.name ?? 'office';
  await addRelay(deps, { workspace: o.workspace, name, key: relayKey.id });
  for (const agent of o.agents) await setRelayAgent(deps, { workspace: o.workspace, name, agent, trust: o.trust ?? 'admin' });
  return { relayKey, key };
}

/**
 * A relay on `gw` (its key at trust execute, registered as `home`) connected with one agent `agent` and welcomed
 * (asserted); closed at the test's end. For the tests that play the relay's side of the tunnel frame by frame.
 */
export async function connectOneAgentRelay(t: Test, gw: TestGateway, o: { workspace: string; agent: string }) {
  const relayKey = await gw.key({ workspace: o.workspace, trust: 'execute' });
  await addRelay(
    { relays: gw.gw.store.relays, keys: gw.gw.store.keys, clock: { now: () => Date.now() } },
    { workspace: o.workspace, name: 'home', key: relayKey.id },
  );
  const { client, answer } = await connectRelay({
    url: gw.url,
    key: relayKey.key,
    workspace: o.workspace,
    agents: [{ name: o.agent, description: 'names its artifacts', skills: [], streaming: false }],
  });
  t.teardown(() => client.close());
  t.match(answer, { t: 'welcome', agents: [{ name: o.agent }] }, 'the relay is welcomed');
  return client;
}

export type ListedAgent = { id: string; kind?: string; online?: boolean; health?: { up: boolean; checkedAt: string; error?: string } };

/** The caller's view of the workspace's agents (agents/list), and sends to one of them, on whichever gateway is current. */
export function callerView(o: { gw: () => TestGateway; key: string }) {
  const listed = async (id: string): Promise<ListedAgent | undefined> =>
    ((await o.gw().rpc({ method: 'agents/list', key: o.key, params: {} })).json.result.agents as ListedAgent[]).find((a) => a.id === id);
  return {
    listed,
    online: async (id: string) => (await listed(id))?.online === true,
    /** a rev B message/send of `text` to `agentId`: the JSON-RPC answer */
    send: async (agentId: string, text: string) =>
      (await o.gw().rpc({ method: 'message/send', key: o.key, params: msgB(text, { metadata: { agentId } }) })).json,
  };
}

export interface TlsFiles {
  certs: Certs;
  /** the gateway's `tls` settings */
  tls: { certFile: string; keyFile: string };
  /** the CA's certificate, for the relay's `ca_file` */
  caFile: string;
  dispose(): Promise<void>;
}

/** A server certificate for 127.0.0.1 signed by a throwaway CA, written to files. */
export async function makeTlsFiles(): Promise<TlsFiles> {
  const certs = await makeCerts();
  const dir = await mkdtemp(join(tmpdir(), 'a2a-relay-tls-'));
  const tls = { certFile: join(dir, 'server.crt'), keyFile: join(dir, 'server.key') };
  const caFile = join(dir, 'ca.crt');
  await writeFile(tls.certFile, certs.server.cert);
  await writeFile(tls.keyFile, certs.server.key);
  await writeFile(caFile, certs.ca.cert);
  return {
    certs,
    tls,
    caFile,
    async dispose() {
      await certs.dispose();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
