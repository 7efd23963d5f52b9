// The builtin demo agents by name, as `AgentSpec.entry` (or the agent id) selects them.
import type { AgentFn } from '../agent-contract.js';
import { converse } from './converse.js';
import { echo } from './echo.js';
import { slow } from './slow.js';

export const BUILTIN_AGENTS: ReadonlyMap<string, AgentFn> = new Map<string, AgentFn>([
  ['echo', echo],
  ['converse', converse],
  ['slow', slow],
]);
