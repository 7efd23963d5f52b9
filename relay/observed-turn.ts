// A turn against a local agent as its observer sees it: runTurn with its start, each event and its end (or a throw,
// told as local_agent_error) reported. Kept apart from turn.ts so the turn itself knows nothing of watchers.
import { errorText } from '../src/runtime/log.js';
import type { RelayObserver } from './observer.js';
import { runTurn, type TurnOptions, type TurnResult } from './turn.js';

export interface ObservedTurnOptions extends TurnOptions {
  observer?: RelayObserver;
  replayOf?: string;
}

export async function runObservedTurn(o: ObservedTurnOptions): Promise<TurnResult> {
  const { observer, replayOf, ...turn } = o;
  const watch = observer?.turn?.({ frame: o.frame, url: o.endpoint.url, at: o.clock.now(), ...(replayOf !== undefined && { replayOf }) });
  if (!watch) return runTurn(turn);
  try {
    const r = await runTurn({
      ...turn,
      onEvent: (ev) => {
        watch.event(ev);
        turn.onEvent(ev);
      },
    });
    watch.end(r, o.clock.now());
    return r;
  } catch (e) {
    watch.end({ ok: false, reason: 'local_agent_error', message: errorText(e) }, o.clock.now());
    throw e;
  }
}
