// The tunnel's machine: an XState machine that opens one session after another, waiting between failures with
// exponential backoff and full jitter, and never less than a refusing gateway's Retry-After asked (up to the cap, and
// spread over up to half again); a crash of a session is a failure like any other, never the relay's end. A crash of
// the machine itself is its supervisor's (supervisor.ts): the relay starts a fresh one.
import { assign, fromPromise, setup } from 'xstate';
import { errorText } from '../src/runtime/log.js';
import { tunnelReasons } from './reasons.js';
import type { SessionEnd } from './session.js';

export interface BackoffSettings {
  baseMs: number;
  capMs: number;
  /** consecutive failures before giving up; 0: never */
  retryAttempts: number;
}

/** Full jitter: uniform in [0, min(cap, base·2^(failures-1))). */
export const backoffDelay = (s: BackoffSettings, failures: number, random: () => number): number =>
  Math.floor(random() * Math.min(s.capMs, s.baseMs * 2 ** Math.min(failures - 1, 30)));

export interface TunnelMachineDeps extends BackoffSettings {
  /** opens a session and resolves how it ended; aborting the signal closes it */
  connect: (signal: AbortSignal) => Promise<SessionEnd>;
  random: () => number;
  now: () => number;
  /**
   * Fault injection, for tests only (never set from the config): called inside the machine as it takes a session's
   * end; a throw crashes the tunnel actor as a bug in its logic would (its supervisor then starts a fresh one).
   */
  fault?: () => void;
}

export interface TunnelContext {
  /** consecutive failed attempts (reset by a connection that held) */
  failures: number;
  lastError: string | undefined;
  delayMs: number;
  nextRetryAt: number | undefined;
  /** the wait the gateway asked for (Retry-After) when it refused the last attempt; delayMs is at least it, up to the cap */
  retryAfterMs: number | undefined;
}

/**
 * The backoff's draw, and not less than the Retry-After asked (up to the cap). Relays a gateway refused together (a
 * restart, an outage) are asked for the same Retry-After: each waits it plus a share of up to half again, taken from
 * the same draw, so they do not all come back in the same instant.
 */
function drawnWait(deps: TunnelMachineDeps, o: { failures: number; retryAfterMs: number | undefined }): number {
  const r = deps.random();
  const asked = Math.min(o.retryAfterMs ?? 0, deps.capMs);
  return Math.max(
    backoffDelay(deps, o.failures, () => r),
    Math.min(deps.capMs, asked + Math.floor((r * asked) / 2)),
  );
}

export function createTunnelMachine(deps: TunnelMachineDeps) {
  const failed = (context: TunnelContext, end: SessionEnd | { kind: 'crash'; reason: string }) => {
    // a refusal with Retry-After is a failed attempt like any other: retry_attempts bounds it too
    const failures = (end.kind === 'closed' && end.held ? 0 : context.failures) + 1;
    const retryAfterMs = end.kind === 'closed' ? end.retryAfterMs : undefined;
    // a refused key waits the cap: the operator has to act, hammering the gateway would not help. Any other failure
    // waits its draw, and not less than the gateway's Retry-After asked, up to the cap: a gateway asking for an hour
    // (or a broken one asking for a year) cannot park the relay longer than a refused key would. The draw is taken as
    // for any failure: once the backoff has grown past what was asked, the longer wait wins.
    const delayMs = end.kind === 'refused' ? deps.capMs : drawnWait(deps, { failures, retryAfterMs });
    return { failures, lastError: end.reason, delayMs, nextRetryAt: deps.now() + delayMs, retryAfterMs };
  };

  return setup({
    types: {} as { context: TunnelContext; events: { type: 'STOP' } },
    actors: {
      session: fromPromise<SessionEnd>(({ signal }) => deps.connect(signal)),
    },
    delays: {
      wait: ({ context }) => context.delayMs,
    },
    guards: {
      spent: ({ context }) => deps.retryAttempts > 0 && context.failures >= deps.retryAttempts,
    },
    actions: {
      ended: assign(({ context }, end: SessionEnd | { kind: 'crash'; reason: string }) => {
        deps.fault?.();
        return failed(context, end);
      }),
    },
  }).createMachine({
    id: 'tunnel',
    context: { failures: 0, lastError: undefined, delayMs: 0, nextRetryAt: undefined, retryAfterMs: undefined },
    initial: 'session',
    on: { STOP: '.stopped' },
    states: {
      session: {
        invoke: {
          src: 'session',
          onDone: { target: 'ended', actions: { type: 'ended', params: ({ event }) => event.output } },
          onError: {
            target: 'ended',
            actions: { type: 'ended', params: ({ event }) => ({ kind: 'crash' as const, reason: tunnelReasons.crashed(errorText(event.error)) }) },
          },
        },
      },
      ended: {
        always: [{ guard: 'spent', target: 'spent' }, { target: 'waiting' }],
      },
      waiting: {
        after: { wait: 'session' },
      },
      spent: { type: 'final' },
      stopped: { type: 'final' },
    },
  });
}
