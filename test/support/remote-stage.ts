// Test support: a gateway on an injected clock whose remote agents each reach one fake remote on a card server (the
// remote is outside the project): per remote, its card and JSON-RPC answer routes, an agent of kind `remote` and a
// connection of that name, and an admin key of the workspace. The stage client-mode tests share.
import type { IncomingHttpHeaders } from 'node:http';
import type { Test } from 'tap';
import type { CredentialsInput } from '../../src/protocol/connections.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { addConnection } from '../../src/runtime/connection-admin.js';
import { parseAllowlist } from '../../src/runtime/net/guard.js';
import { cardServer, remoteCard, type Answer, type CardServer, type Dialect } from './card-server.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { msgB, startTestGateway, type TestGateway } from './gateway.js';

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
  /** headers its card is served with (a Cache-Control) */
  cardHeaders?: Record<string, string>;
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
    /** the gateway's client-mode settings */
    connections?: ConfigInput['connections'];
  },
): Promise<RemoteStage> {
  const s = await cardServer(t);
  for (const r of o.remotes) {
    s.route.set(`/${r.name}/.well-known/agent-card.json`, () => ({ status: 200, body: r.card(), ...(r.cardHeaders && { headers: r.cardHeaders }) }));
    s.route.set(`/${r.name}/rpc`, r.answer);
  }
  const ours = await startTestGateway({
    clock: o.clock,
    timers: o.clock,
    config: {
      push: { allowlist: ['127.0.0.1'] },
      ...(o.connections && { connections: o.connections }),
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

/** A remote of the dialect matrix: its name (our agent's and its connection's), its A2A version, whether its card streams. */
export interface DialectRemote {
  name: string;
  dialect: Dialect;
  streaming?: boolean;
}

/** The four remotes most client tests run each case against: 0.3 and 1.0, each plain and streamed. */
export const DIALECT_MATRIX: ReadonlyArray<{ name: string; dialect: Dialect; streaming: boolean }> = [
  { name: 'plain03', dialect: '0.3', streaming: false },
  { name: 'stream03', dialect: '0.3', streaming: true },
  { name: 'plain10', dialect: '1.0', streaming: false },
  { name: 'stream10', dialect: '1.0', streaming: true },
];

/**
 * Staged remotes whose cards are remoteCard's for their dialect on the server at `base()` (the stage's card server is
 * made by remoteStage, so it is read when a card is asked for), each JSON-RPC call answered by `answer` with its body
 * parsed; `settings` adds a remote's own (trust, storeResults, credentials).
 */
export function dialectRemotes<R extends DialectRemote>(
  remotes: readonly R[],
  o: {
    base: () => string;
    answer: (r: R, req: any, headers: IncomingHttpHeaders) => Answer;
    settings?: (r: R) => Omit<Partial<StagedRemote>, 'name' | 'card' | 'answer'>;
  },
): StagedRemote[] {
  return remotes.map((r) => ({
    name: r.name,
    card: () => remoteCard({ base: o.base(), name: r.name, dialect: r.dialect, streaming: r.streaming ?? false }),
    answer: (h: IncomingHttpHeaders, body: string) => o.answer(r, JSON.parse(body), h),
    ...o.settings?.(r),
  }));
}

/** Our caller's `message/send` of "go" to our agent `agentId` (with `extra`, a follow-up's taskId) through the gateway: the task answered. */
export const sendGo = async (st: { ours: TestGateway; key: string }, agentId: string, extra: Record<string, unknown> = {}) =>
  (await st.ours.rpc({ method: 'message/send', key: st.key, params: msgB('go', { metadata: { agentId }, ...extra }) })).json.result;

/** A dialect stage: its parts once the file's `t.before` has started it, and the calls its tests make through it. */
export interface DialectStage extends RemoteStage {
  /** our caller's `message/send` of "go" to our agent `agentId` (sendGo): the task answered */
  send(agentId: string, extra?: Record<string, unknown>): ReturnType<typeof sendGo>;
  /** the results the result store keeps for the connection `connection` of the stage's workspace */
  results(connection: string): ReturnType<TestGateway['gw']['store']['results']['list']>;
}

/**
 * The stage most client tests share, started in the file's `t.before`: `remotes` of the dialect matrix, each answering
 * every JSON-RPC call by `answer` (the body parsed) on its own clock, with `storeResults` when asked. The object is
 * filled in when the stage is up, so tests read its fields inside their own bodies.
 */
export function dialectStage<R extends DialectRemote>(
  t: Test,
  o: { workspace: string; remotes: readonly R[]; answer: (r: R, req: any) => Answer; storeResults?: boolean },
): DialectStage {
  const stage = {
    send: (agentId: string, extra?: Record<string, unknown>) => sendGo(stage, agentId, extra),
    results: (connection: string) => stage.ours.gw.store.results.list({ workspace: o.workspace, connection }),
  } as DialectStage;
  t.before(async () => {
    Object.assign(
      stage,
      await remoteStage(t, {
        clock: new ManualClock(Date.now()),
        workspace: o.workspace,
        remotes: dialectRemotes(o.remotes, {
          base: () => stage.s.url,
          answer: o.answer,
          ...(o.storeResults && { settings: () => ({ storeResults: true }) }),
        }),
      }),
    );
  });
  return stage;
}
