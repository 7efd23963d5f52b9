// The debug log of local calls: each turn's agent, stream id, outcome and time (log_level debug). Frames are logged by
// the session; connection changes and failures at info by the relay itself. Never a key or a body.
import type { Log } from '../../src/runtime/log.js';
import type { RelayObserver } from '../observer.js';

export function debugTurnLog(log: Log): RelayObserver {
  return {
    turn(start) {
      const f = start.frame;
      log('relay local call started', { agent: f.agent, sid: f.sid, stream: f.stream, ...(start.replayOf && { replay_of: start.replayOf }) });
      return {
        event: () => {},
        end: (r, at) => log('relay local call ended', { agent: f.agent, sid: f.sid, ms: Math.max(0, at - start.at), outcome: r.ok ? 'ok' : r.reason }),
      };
    },
  };
}
