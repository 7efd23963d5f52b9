// The slow demo agent: works for a requested time, reporting progress and streaming its artifact in chunks.
import type { AgentEvent } from '../../../protocol/agent-events.js';
import { sleep } from '../../../protocol/long-timeout.js';
import type { Message } from '../../../protocol/model.js';
import type { AgentContext } from '../agent-contract.js';

export interface SlowParams {
  ms: number;
  steps: number;
  /** sleep honours the AbortSignal; cpu busy-loops and can only be stopped by ending the worker */
  mode: 'sleep' | 'cpu';
}

const DEFAULTS: SlowParams = { ms: 2000, steps: 4, mode: 'sleep' };

const pick = (src: Record<string, unknown>): Partial<SlowParams> => {
  const out: Partial<SlowParams> = {};
  if (typeof src.ms === 'number' && Number.isFinite(src.ms) && src.ms >= 0) out.ms = src.ms;
  if (typeof src.steps === 'number' && Number.isInteger(src.steps) && src.steps >= 1) out.steps = Math.min(src.steps, 1000);
  if (src.mode === 'sleep' || src.mode === 'cpu') out.mode = src.mode;
  return out;
};

/** Parameters from the first data part that names any, else from message.metadata. */
export function slowParams(message: Message): SlowParams {
  for (const part of message.parts) {
    if (part.kind !== 'data') continue;
    const found = pick(part.data);
    if (Object.keys(found).length > 0) return { ...DEFAULTS, ...found };
  }
  return { ...DEFAULTS, ...(message.metadata ? pick(message.metadata) : {}) };
}

function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // deliberately busy: this is the agent a cancel must be able to stop
  }
}

export async function* slow({ message, signal }: AgentContext): AsyncGenerator<AgentEvent> {
  const { ms, steps, mode } = slowParams(message);
  const stepMs = ms / steps;
  const artifactId = `slow-${message.messageId}`;
  for (let i = 1; i <= steps; i++) {
    if (mode === 'cpu') spin(stepMs);
    else await sleep(stepMs, signal);
    yield {
      type: 'status',
      state: 'working',
      message: { parts: [{ kind: 'text', text: `step ${i}/${steps}` }], metadata: { step: i, steps } },
    };
    yield {
      type: 'artifact',
      artifact: {
        artifactId,
        name: 'slow-result',
        parts: [{ kind: 'text', text: `chunk ${i}/${steps}\n` }],
        ...(i > 1 ? { append: true } : {}),
        lastChunk: i === steps,
      },
    };
  }
  yield { type: 'status', state: 'completed', message: { parts: [{ kind: 'text', text: `worked ${ms} ms in ${steps} steps (${mode})` }] } };
}
