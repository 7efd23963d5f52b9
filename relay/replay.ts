// A replay from the admin UI: a logged turn's message sent again to its local agent as a new task (a fresh task id,
// no history, no link to the local task it continued), under the local timeout, observed like any turn.
import type { Message } from '../src/protocol/model.js';
import type { Clock, Timers } from '../src/runtime/clock.js';
import type { A2AClient, RemoteEndpoint } from '../src/runtime/a2a-client/types.js';
import { runObservedTurn } from './observed-turn.js';
import type { RelayObserver } from './observer.js';
import type { TurnResult } from './turn.js';

export interface ReplayDeps {
  client: A2AClient;
  clock: Clock;
  timers: Timers;
  workspace: string;
  endpoints: ReadonlyMap<string, RemoteEndpoint>;
  timeoutMs: number;
  observer: RelayObserver | undefined;
}

export type Replay = (r: { agent: string; message: Message; replayOf: string }) => Promise<TurnResult>;

export function createReplay(d: ReplayDeps): Replay {
  let n = 1;
  return async (r) => {
    const endpoint = d.endpoints.get(r.agent);
    if (!endpoint) return { ok: false, reason: 'unknown_agent', message: `this relay serves no agent ${r.agent}` };
    const id = `replay-${n++}-${d.clock.now()}`;
    return runObservedTurn({
      observer: d.observer,
      replayOf: r.replayOf,
      client: d.client,
      clock: d.clock,
      timers: d.timers,
      workspace: d.workspace,
      endpoint,
      frame: {
        t: 'run',
        sid: 0,
        agent: r.agent,
        task: { id, contextId: id, history: [], artifacts: [], metadata: {} },
        message: { role: r.message.role, parts: r.message.parts, ...(r.message.metadata && { metadata: r.message.metadata }), messageId: `${id}-m` },
        stream: true,
      },
      timeoutMs: d.timeoutMs,
      signal: new AbortController().signal,
      onEvent: () => {},
    });
  };
}
