// Test support: a gateway on an injected clock whose remote agents each reach one fake remote on a card server (the
// remote is outside the project): per remote, its card and JSON-RPC answer routes, an agent of kind `remote` and a
// connection of that name, and an admin key of the workspace. The stage client-mode tests share.
import type { IncomingHttpHeaders } from 'node:http';
import type { Test } from 'tap';
import type { CredentialsInput } from '../../src/protocol/connections.js';
import type { ManualClock } from '../../src/runtime/clock.js';
import { addConnection } from '../../src/runtime/connection-admin.js';
import { parseAllowlist } from '../../src/runtime/net/guard.js';
import { cardServer, type Answer, type CardServer } from './card-server.js';
import type { ConfigInput } from '../../src/config.js';
import { startTestGateway, type TestGateway } from './gateway.js';

export interface StagedRemote {
  name: string;
  card: () => unknown;
  answer: (headers: IncomingHttpHeaders, body: string) => Answer;
  /** the connection's trust (default admin) */
  trust?: 'admin' | 'execute';
  storeResults?: boolean;
  /** the connection's credentials (default none) */
  credentials?: CredentialsInput;
  /** other origins its card may name */
  allowedOrigins?: string[];
}

export interface RemoteStage {
  s: CardServer;
  ours: TestGateway;
  key: string;
}

/** Starts the stage; the gateway closes with the test (`t.teardown`). */
export async function remoteStage(
  t: Test,
  o: {
    clock: ManualClock;
    workspace: string;
    remotes: StagedRemote[];
    /** agents of ours beside the remote ones (a module agent that calls a remote with ctx.call) */
    agents?: NonNullable<ConfigInput['agents']>;
  },
): Promise<RemoteStage> {
  const s = await cardServer(t);
  for (const r of o.remotes) {
    s.route.set(`/${r.name}/.well-known/agent-card.json`, () => ({ status: 200, body: r.card() }));
    s.route.set(`/${r.name}/rpc`, r.answer);
  }
  const ours = await startTestGateway({
    clock: o.clock,
    timers: o.clock,
    config: {
      push: { allowlist: ['127.0.0.1'] },
      agents: [
        ...o.remotes.map((r) => ({ id: r.name, name: r.name, kind: 'remote' as const, connection: r.name, workspace: o.workspace })),
        ...(o.agents ?? []),
      ],
    },
  });
  t.teardown(() => ours.close());
  const key = (await ours.key({ workspace: o.workspace, trust: 'admin' })).key;
  const deps = { connections: ours.gw.store.connections, secret: ours.gw.secret, clock: o.clock, allowlist: parseAllowlist(['127.0.0.1']) };
  for (const r of o.remotes)
    await addConnection(deps, {
      workspace: o.workspace,
      name: r.name,
      url: `${s.url}/${r.name}`,
      credentials: r.credentials ?? { kind: 'none' },
      trust: r.trust ?? 'admin',
      ...(r.storeResults === true && { storeResults: true }),
      ...(r.allowedOrigins && { allowedOrigins: r.allowedOrigins }),
    });
  return { s, ours, key };
}
