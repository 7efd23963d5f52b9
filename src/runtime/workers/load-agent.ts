// Finds the code for an AgentSpec inside a worker: a builtin by name, or a module's default (or `run`) export.
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AgentRef } from '../../protocol/agent-events.js';
import type { AgentContext } from './agent-contract.js';
import { BUILTIN_AGENTS } from './agents/index.js';

/** A module agent is not typed: what it returns and yields is checked at run time. */
export type LoadedAgent = (ctx: AgentContext) => unknown;

const isAgentFn = (v: unknown): v is LoadedAgent => typeof v === 'function';

export type LoadResult = { ok: true; fn: LoadedAgent } | { ok: false; message: string };

// A failed import is not cached, so a module fixed on disk loads on a later run.
const modules = new Map<string, LoadedAgent>();

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

async function loadModule(entry: string): Promise<LoadResult> {
  const path = isAbsolute(entry) ? entry : resolve(process.cwd(), entry);
  const cached = modules.get(path);
  if (cached) return { ok: true, fn: cached };
  let mod: Record<string, unknown>;
  try {
    mod = await import(pathToFileURL(path).href);
  } catch (err) {
    return { ok: false, message: `the agent's module failed to load: ${errorText(err)}` };
  }
  const fn = isAgentFn(mod.default) ? mod.default : mod.run;
  if (!isAgentFn(fn)) return { ok: false, message: `the agent's module exports no default function and no run()` };
  modules.set(path, fn);
  return { ok: true, fn };
}

export async function loadAgent(agent: AgentRef): Promise<LoadResult> {
  if (agent.kind === 'module') {
    if (!agent.entry) return { ok: false, message: `agent ${agent.id} is a module agent without an entry path` };
    return loadModule(agent.entry);
  }
  const name = agent.entry ?? agent.id;
  const fn = BUILTIN_AGENTS.get(name);
  return fn ? { ok: true, fn } : { ok: false, message: `no builtin agent named ${name}` };
}
