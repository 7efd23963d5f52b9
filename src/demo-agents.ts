// The builtin demo agents served with no config file: every workspace may use them, so a first key works at once.
import { AgentSpec } from './protocol/agent-events.js';

export const DEMO_AGENTS: AgentSpec[] = [
  {
    id: 'echo',
    name: 'Echo',
    description: 'Completes at once with an artifact echoing the message parts.',
    entry: 'echo',
    default: true,
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes the parts it is sent.', tags: ['demo'], examples: ['hello'] }],
  },
  {
    id: 'converse',
    name: 'Converse',
    description: 'Multi-turn: asks for more input until the user says "done", then completes with a summary.',
    entry: 'converse',
    skills: [
      { id: 'converse', name: 'Converse', description: 'Collects several turns and summarizes them.', tags: ['demo'], examples: ['first point', 'done'] },
    ],
  },
  {
    id: 'slow',
    name: 'Slow',
    description: 'Works for a requested time reporting progress; cancellable. A data part {ms, steps, mode: "sleep"|"cpu"} sets it.',
    entry: 'slow',
    skills: [{ id: 'slow', name: 'Slow work', description: 'Works for a while and reports progress.', tags: ['demo'], examples: ['{"ms": 3000, "steps": 3}'] }],
  },
].map((a) => AgentSpec.parse(a));
