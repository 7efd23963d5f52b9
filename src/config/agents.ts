// The agents a config runs: the `agents` list's checks (ids, kinds, a module's entry), the demo agents when it is
// absent, and the start-up check that every module agent's file exists.
import { z } from 'zod';
import { DEMO_AGENTS } from '../demo-agents.js';
import { AgentSpec } from '../protocol/agent-events.js';
import { ConfigError } from './error.js';

/** Agent ids name URLs and tasks, so a repeated id would run another agent than the one chosen; a module agent needs its file. */
function checkAgents(agents: AgentSpec[], ctx: z.RefinementCtx<AgentSpec[]>): void {
  const seen = new Set<string>();
  agents.forEach((a, i) => {
    if (seen.has(a.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate agent id '${a.id}'` });
    seen.add(a.id);
    if (a.kind === 'module' && !a.entry)
      ctx.addIssue({ code: 'custom', path: [i, 'entry'], message: 'a module agent needs an entry: the path of its JS file' });
    if (a.kind === 'relay')
      ctx.addIssue({ code: 'custom', path: [i, 'kind'], message: 'relay agents are announced by a relay (a2a-gateway relays add), not configured' });
    if (a.childProcesses !== undefined && a.kind !== 'module')
      ctx.addIssue({ code: 'custom', path: [i, 'childProcesses'], message: 'only a module agent runs code of its own that could start a process' });
    if (a.kind === 'remote' && !a.connection)
      ctx.addIssue({ code: 'custom', path: [i, 'connection'], message: 'a remote agent needs a connection: the name of an outbound connection' });
  });
}

/** The config's `agents`: agent specs whose ids are unique and whose kind has what it needs. */
export const AgentList = z.array(AgentSpec).superRefine(checkAgents);

/** The agents a config runs: its own list, else the builtin demo agents (echo, converse, slow) serving every workspace. */
export const agentsOf = (c: { agents?: AgentSpec[] | undefined }): AgentSpec[] => c.agents ?? DEMO_AGENTS;

/** Start-up check: every module agent's file exists (a missing one would only show when a task fails). */
export function checkAgentEntries(agents: readonly AgentSpec[], exists: (path: string) => boolean): void {
  const missing = agents.filter((a) => a.kind === 'module' && a.entry && !exists(a.entry));
  if (missing.length === 0) return;
  const lines = missing.map((a) => `  agent '${a.id}': entry ${a.entry} does not exist`);
  throw new ConfigError(
    `invalid config: module agents whose file is missing (relative entries are resolved against the config file's directory):\n${lines.join('\n')}`,
  );
}
