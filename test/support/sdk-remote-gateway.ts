// Test support: our gateway with one remote agent that an @a2a-js/sdk server (sdk-remote.ts) answers, reached through
// a connection named 'sdk' in workspace 'ws1', and an admin key of that workspace to call it with. For the tests of how
// the gateway relays a remote's answers (remote-chunks, remote-growth); both are closed when the test ends.
import type { AgentExecutor } from '@a2a-js/sdk/server';
import type { Test } from 'tap';
import type { ConfigInput } from '../../src/config/schema.js';
import { addConnection } from '../../src/runtime/connection-admin.js';
import { parseAllowlist } from '../../src/runtime/net/guard.js';
import { startTestGateway, type TestGateway } from './gateway.js';
import { startSdkRemote, type SdkRemote } from './sdk-remote.js';

/** The workspace of the agent, its connection and the key. */
export const REMOTE_WS = 'ws1';

export interface SdkRemoteGateway {
  sdk: SdkRemote;
  ours: TestGateway;
  /** an admin key of REMOTE_WS */
  key: string;
}

export async function startSdkRemoteGateway(
  t: Test,
  o: {
    executor: AgentExecutor;
    /** whether the remote's card offers streaming (we stream it) or not (we send and poll) */
    streaming: boolean;
    /** the agent's id and name on our gateway */
    agentId: string;
    /** more of our gateway's config (push and agents are set here) */
    config?: Omit<ConfigInput, 'push' | 'agents'>;
  },
): Promise<SdkRemoteGateway> {
  const sdk = await startSdkRemote({ executor: o.executor, streaming: o.streaming });
  const ours = await startTestGateway({
    config: {
      ...o.config,
      push: { allowlist: ['127.0.0.1'] },
      agents: [{ id: o.agentId, name: o.agentId, kind: 'remote', connection: 'sdk', workspace: REMOTE_WS }],
    },
  });
  t.teardown(async () => {
    await ours.close();
    await sdk.close();
  });
  await addConnection(
    { connections: ours.gw.store.connections, secret: ours.gw.secret, clock: { now: () => Date.now() }, allowlist: parseAllowlist(['127.0.0.1']) },
    { workspace: REMOTE_WS, name: 'sdk', url: sdk.url, credentials: { kind: 'none' }, trust: 'admin', dialect: 'auto', agents: [] },
  );
  const { key } = await ours.key({ workspace: REMOTE_WS, trust: 'admin' });
  return { sdk, ours, key };
}
