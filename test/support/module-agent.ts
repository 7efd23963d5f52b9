// Test support: a real gateway on port 0 running one module agent whose source a test writes into a temp dir (removed
// at teardown), a key of one workspace, and a send of a text message to that agent.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { msgB, startTestGateway, type RpcResult, type TestGateway } from './gateway.js';

export interface ModuleAgentGateway {
  g: TestGateway;
  /** a key of the workspace asked for */
  key: string;
  /** message/send of one text part to the agent (metadata.agentId), with that key */
  send(text: string): Promise<RpcResult>;
}

export async function startModuleAgentGateway(
  t: Test,
  o: { agent: { id: string; name: string; default?: boolean }; source: string; workspace: string },
): Promise<ModuleAgentGateway> {
  const dir = await mkdtemp(join(tmpdir(), `a2a-${o.agent.id}-`));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const entry = join(dir, `${o.agent.id}.js`);
  await writeFile(entry, o.source);
  const g = await startTestGateway({ config: { agents: [{ ...o.agent, kind: 'module', entry }] } as never });
  t.teardown(() => g.close());
  const { key } = await g.key({ workspace: o.workspace });
  const send = (text: string) => g.rpc({ key, method: 'message/send', params: msgB(text, { metadata: { agentId: o.agent.id } }) });
  return { g, key, send };
}
