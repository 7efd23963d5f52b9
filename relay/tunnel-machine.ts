// The tunnel's machine: an XState machine that opens one session after another, waiting between failures with
// exponential backoff and full jitter; a crash of a session is a failure like any other, never the relay's end. A crash
// of the machine itself is its supervisor's (supervisor.ts): the relay starts a fresh one.
import { assign, fromPromise, setup } from 'xstate';
import { errorText } from '../src/runtime/log.js';
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
}

export function createTunnelMachine(deps: TunnelMachineDeps) {
  const failed = (context: TunnelContext, end: SessionEnd | { kind: 'crash'; reason: string }) => {
    const failures = (end.kind === 'closed' && end.held ? 0 : context.failures) + 1;
    // a refused key waits the cap: the operator has to act, hammering the gateway would not help
    const delayMs = end.kind === 'refused' ? deps.capMs : backoffDelay(deps, failures, deps.random);
    return { failures, lastError: end.reason, delayMs, nextRetryAt: deps.now() + delayMs };
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
    context: { failures: 0, lastError: undefined, delayMs: 0, nextRetryAt: undefined },
    initial: 'session',
    on: { STOP: '.stopped' },
    states: {
      session: {
        invoke: {
          src: 'session',
          onDone: { target: 'ended', actions: { type: 'ended', params: ({ event }) => event.output } },
          onError: {
            target: 'ended',
            actions: { type: 'ended', params: ({ event }) => ({ kind: 'crash' as const, reason: `the tunnel crashed: ${errorText(event.error)}` }) },
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
