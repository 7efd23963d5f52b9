// Finds the code for an AgentSpec inside a worker: a builtin by name, or a module's default (or `run`) export.
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AgentRef } from '../../protocol/agent-events.js';
import type { AgentContext } from './agent-contract.js';
import { BUILTIN_AGENTS } from './agents/index.js';
import { describeThrown } from './thrown.js';

/** A module agent is not typed: what it returns and yields is checked at run time. */
export type LoadedAgent = (ctx: AgentContext) => unknown;

const isAgentFn = (v: unknown): v is LoadedAgent => typeof v === 'function';

export type LoadResult = { ok: true; fn: LoadedAgent } | { ok: false; message: string };

// A failed import is not cached, so a module fixed on disk loads on a later run.
const modules = new Map<string, LoadedAgent>();

/**
 * Names the agent and its file: the operator reads this in the log whole, a caller reads it with the path redacted
 * (worker-runner), and either way knows which agent to fix.
 */
async function loadModule(id: string, entry: string): Promise<LoadResult> {
  const path = isAbsolute(entry) ? entry : resolve(process.cwd(), entry);
  const cached = modules.get(path);
  if (cached) return { ok: true, fn: cached };
  let mod: Record<string, unknown>;
  try {
    mod = await import(pathToFileURL(path).href);
  } catch (err) {
    return { ok: false, message: `agent ${id}: its module ${path} failed to load: ${describeThrown(err)}` };
  }
  const fn = isAgentFn(mod.default) ? mod.default : mod.run;
  if (!isAgentFn(fn)) return { ok: false, message: `agent ${id}: its module ${path} exports no default function and no run()` };
  modules.set(path, fn);
  return { ok: true, fn };
}

export async function loadAgent(agent: AgentRef): Promise<LoadResult> {
  if (agent.kind === 'module') {
    if (!agent.entry) return { ok: false, message: `agent ${agent.id} is a module agent without an entry path` };
    return loadModule(agent.id, agent.entry);
  }
  const name = agent.entry ?? agent.id;
  const fn = BUILTIN_AGENTS.get(name);
  return fn ? { ok: true, fn } : { ok: false, message: `no builtin agent named ${name}` };
}
