// Test support: the relay as its command runs it (runRelayCli in this process, admin UI on port 0) between a real
// gateway (behind a TCP forwarder, so it can be stopped and started again) and real local agents (the official SDK
// server). Registers the relay for its key and gives each local agent admin trust.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestHandler } from 'express';
import type { Admin } from '../../relay/admin/server.js';
import { type CliOptions, runRelayCli } from '../../relay/cli.js';
import { addRelay, setRelayAgent } from '../../src/runtime/relay-admin.js';
import { until } from './a2a-client.js';
import { msgB, startTestGateway, type TestGateway } from './gateway.js';
import { startSdkRemote, type SdkRemote } from './sdk-remote.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

export const WS = 'ws1';

export interface RelayStack {
  gw: TestGateway;
  proxy: TcpProxy;
  /** local agents by name */
  agents: Map<string, SdkRemote>;
  /** a caller's key (admin trust) */
  key: string;
  relayKey: string;
  admin: Admin;
  logs: string[];
  /** the relay command's exit code, once it ended */
  exit: Promise<number>;
  send(text: string, agent?: string): Promise<any>;
  /** true once the gateway lists the agent online */
  online(agent: string): Promise<boolean>;
  stopGateway(): Promise<void>;
  startGateway(): Promise<void>;
  close(): Promise<void>;
}

export interface RelayStackOptions {
  /** local agent names (each an SDK server); the first is the default */
  names?: string[];
  /** middleware in front of each local agent's routes */
  before?: RequestHandler[];
  env?: Record<string, string>;
  config?: Record<string, unknown>;
  cli?: Partial<CliOptions>;
}

export async function startRelayStack(o: RelayStackOptions = {}): Promise<RelayStack> {
  const names = o.names ?? ['sdk-echo'];
  const dataDir = await mkdtemp(join(tmpdir(), 'a2a-relay-ui-'));
  let gw = await startTestGateway({ dataDir });
  const proxy = await startTcpProxy(Number(new URL(gw.url).port));
  const relayKey = await gw.key({ workspace: WS, trust: 'execute' });
  const key = (await gw.key({ workspace: WS, trust: 'admin' })).key;
  const deps = { relays: gw.gw.store.relays, keys: gw.gw.store.keys, clock: { now: () => Date.now() } };
  await addRelay(deps, { workspace: WS, name: 'office', key: relayKey.id });
  const agents = new Map<string, SdkRemote>();
  for (const name of names) {
    await setRelayAgent(deps, { workspace: WS, name: 'office', agent: name, trust: 'admin' });
    agents.set(name, await startSdkRemote({ ...(o.before && { before: o.before }), cardExtra: { name } }));
  }
  const dir = await mkdtemp(join(tmpdir(), 'a2a-relay-ui-conf-'));
  const file = join(dir, 'relay.json');
  await writeFile(
    file,
    JSON.stringify({
      workspace_id: WS,
      api_key: relayKey.key,
      gateway_url: `ws://127.0.0.1:${proxy.port}`,
      agents: names.map((n) => ({
        name: n,
        description: `the SDK echo server, as ${n}`,
        local_url: agents.get(n)!.url,
        skills: [{ id: 'echo', name: 'Echo', description: 'says back what it is told' }],
      })),
      health_check_interval: 1,
      admin_port: 0,
      ...o.config,
    }),
  );
  const logs: string[] = [];
  let stop!: () => void;
  const stopWhen = new Promise<void>((r) => {
    stop = r;
  });
  let admin: Admin | undefined;
  const exit = runRelayCli(['--config', file], {
    env: o.env ?? {},
    stopWhen,
    log: (msg, f) => logs.push(`${msg} ${JSON.stringify(f ?? {})}`),
    err: (l) => logs.push(l),
    onAdmin: (a) => {
      admin = a;
    },
    ...o.cli,
  });
  const online = async (id: string) =>
    ((await gw.rpc({ method: 'agents/list', key, params: {} })).json.result.agents as Array<{ id: string; online?: boolean }>).some(
      (a) => a.id === id && a.online === true,
    );
  await until(() => admin !== undefined, 'the admin UI listens');
  for (const n of names) await until(() => online(n), `${n} is online`, 30_000);
  return {
    get gw() {
      return gw;
    },
    proxy,
    agents,
    key,
    relayKey: relayKey.key,
    admin: admin!,
    logs,
    exit,
    send: async (text, agent = names[0]!) => (await gw.rpc({ method: 'message/send', key, params: msgB(text, { metadata: { agentId: agent } }) })).json,
    online,
    async stopGateway() {
      proxy.target(undefined);
      await gw.close();
      proxy.cut();
    },
    async startGateway() {
      gw = await startTestGateway({ dataDir });
      proxy.target(Number(new URL(gw.url).port));
    },
    async close() {
      stop();
      await exit;
      await gw.close();
      await proxy.close();
      for (const a of agents.values()) await a.close().catch(() => {});
    },
  };
}
