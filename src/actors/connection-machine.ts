// The outbound connection machine (XState v5): discovering, ready, backing off, circuit open, half-open. Effects are injected.
import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { ConnectionState } from '../protocol/connections.js';
import type { Dialect } from '../protocol/model.js';

/** What discovery (or a half-open probe) learned of the remote. */
export interface DiscoveryResult {
  dialect: Dialect;
  remoteName: string;
}

export interface ConnectionMachineDeps {
  /** reads the remote's card; `fresh` skips the cache (a half-open probe must reach the remote) */
  discover(o: { fresh: boolean }): Promise<DiscoveryResult>;
  /** 0 <= x < 1 (full jitter); injected so a test knows the delays */
  random(): number;
  now(): number;
  /** the first retry waits up to this long; each failure doubles it up to backoffMaxMs */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** this many consecutive failures open the circuit */
  circuitFailures: number;
  /** how long an open circuit refuses calls before one probe is let through */
  coolDownMs: number;
}

export interface ConnectionContext {
  failures: number;
  lastError: string | undefined;
  /** when the pending timer (retry or probe) fires */
  nextRetryAt: number | undefined;
  /** the delay of the pending timer */
  delayMs: number;
  dialect: Dialect | undefined;
  remoteName: string | undefined;
}

export type ConnectionEvent =
  /** a call over the connection succeeded: the remote is well */
  | { type: 'CALL_OK' }
  /** a call failed for a reason that says the remote is unwell (unreachable, timeout, bad answers) */
  | { type: 'CALL_FAULT'; error: string }
  /** a call was refused for a reason the connection's settings or the remote's card must change (not counted) */
  | { type: 'CALL_REFUSED'; error: string }
  /** discover again now (the connection's settings changed, or an operator asked) */
  | { type: 'REDISCOVER' }
  | { type: 'STOP' };

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The machine's state name as the status record spells it. */
export const STATE_NAMES: Record<string, ConnectionState> = {
  discovering: 'discovering',
  ready: 'ready',
  backingOff: 'backing-off',
  circuitOpen: 'circuit-open',
  halfOpen: 'half-open',
  stopped: 'stopped',
};

export function createConnectionMachine(deps: ConnectionMachineDeps) {
  /** Exponential backoff with full jitter: a herd of connections to one remote spreads its retries. */
  const backoff = (failures: number): number => {
    const cap = Math.min(deps.backoffMaxMs, deps.backoffBaseMs * 2 ** Math.min(failures - 1, 30));
    return Math.max(1, Math.floor(deps.random() * cap));
  };
  const failed = (context: ConnectionContext, error: string, delayMs: (failures: number) => number) => {
    const failures = context.failures + 1;
    const delay = delayMs(failures);
    return { failures, lastError: error, delayMs: delay, nextRetryAt: deps.now() + delay };
  };

  return setup({
    types: {} as { context: ConnectionContext; events: ConnectionEvent },
    actors: {
      discover: fromPromise<DiscoveryResult, { fresh: boolean }>(({ input }) => deps.discover(input)),
    },
    delays: {
      wait: ({ context }) => context.delayMs,
    },
    guards: {
      tooManyFailures: ({ context }) => context.failures + 1 >= deps.circuitFailures,
    },
    actions: {
      learned: assign((_, r: DiscoveryResult) => ({
        failures: 0,
        lastError: undefined,
        nextRetryAt: undefined,
        dialect: r.dialect,
        remoteName: r.remoteName,
      })),
      retryLater: assign(({ context }, p: { error: string }) => failed(context, p.error, backoff)),
      openCircuit: assign(({ context }, p: { error: string }) => failed(context, p.error, () => deps.coolDownMs)),
      healthy: assign({ failures: 0, lastError: undefined }),
      fault: assign(({ context }, p: { error: string }) => ({ failures: context.failures + 1, lastError: p.error })),
      refused: assign((_, p: { error: string }) => ({ lastError: p.error })),
    },
  }).createMachine({
    id: 'connection',
    context: { failures: 0, lastError: undefined, nextRetryAt: undefined, delayMs: 0, dialect: undefined, remoteName: undefined },
    initial: 'discovering',
    on: { STOP: '.stopped' },
    states: {
      discovering: {
        invoke: {
          src: 'discover',
          input: { fresh: false },
          onDone: { target: 'ready', actions: { type: 'learned', params: ({ event }) => event.output } },
          onError: [
            { guard: 'tooManyFailures', target: 'circuitOpen', actions: { type: 'openCircuit', params: ({ event }) => ({ error: errorText(event.error) }) } },
            { target: 'backingOff', actions: { type: 'retryLater', params: ({ event }) => ({ error: errorText(event.error) }) } },
          ],
        },
      },
      backingOff: {
        after: { wait: 'discovering' },
        on: { REDISCOVER: 'discovering' },
      },
      ready: {
        on: {
          CALL_OK: { actions: 'healthy' },
          CALL_FAULT: [
            { guard: 'tooManyFailures', target: 'circuitOpen', actions: { type: 'openCircuit', params: ({ event }) => ({ error: event.error }) } },
            { actions: { type: 'fault', params: ({ event }) => ({ error: event.error }) } },
          ],
          CALL_REFUSED: { actions: { type: 'refused', params: ({ event }) => ({ error: event.error }) } },
          REDISCOVER: 'discovering',
        },
      },
      circuitOpen: {
        after: { wait: 'halfOpen' },
      },
      halfOpen: {
        // one probe that must reach the remote: the card, fetched past the cache
        invoke: {
          src: 'discover',
          input: { fresh: true },
          onDone: { target: 'ready', actions: { type: 'learned', params: ({ event }) => event.output } },
          onError: { target: 'circuitOpen', actions: { type: 'openCircuit', params: ({ event }) => ({ error: errorText(event.error) }) } },
        },
      },
      stopped: { type: 'final' },
    },
  });
}

export type ConnectionMachine = ReturnType<typeof createConnectionMachine>;
export type ConnectionActor = ActorRefFrom<ConnectionMachine>;
export type ConnectionSnapshot = SnapshotFrom<ConnectionMachine>;
