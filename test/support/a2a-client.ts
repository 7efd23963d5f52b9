// Test support for the A2A client: a client that admits 127.0.0.1 (as the tests' allowlist does), user messages, and
// waiting for something that real I/O brings about (never for time to pass: timed behaviour runs on a ManualClock).
import { randomUUID } from 'node:crypto';
import type { Message, Part } from '../../src/protocol/model.js';
import { createA2AClient, type A2AClientOptions } from '../../src/runtime/a2a-client/client.js';
import type { A2AClient } from '../../src/runtime/a2a-client/types.js';
import { systemClock, systemTimers, type ManualClock, type Timers } from '../../src/runtime/clock.js';
import { parseAllowlist } from '../../src/runtime/net/guard.js';

export const LOOPBACK_ONLY = parseAllowlist(['127.0.0.1']);

export function testClient(o: Partial<A2AClientOptions> = {}): A2AClient {
  return createA2AClient({ clock: systemClock, timers: systemTimers, allowlist: LOOPBACK_ONLY, ...o });
}

export const userMessage = (text: string, extra: { parts?: Part[]; metadata?: Record<string, unknown> } = {}): Message => ({
  role: 'user',
  parts: extra.parts ?? [{ kind: 'text', text }],
  messageId: randomUUID(),
  ...(extra.metadata && { metadata: extra.metadata }),
});

/** Resolves once `cond` holds, checking every few ms; fails naming `what` after `timeoutMs` of real time. */
export async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * What `p` settles to, moving `clock` a second at a time until it does: a call whose remote is polled waits on the
 * injected clock between polls.
 */
export async function settleWithClock<T>(clock: ManualClock, p: Promise<T>, what = 'the send to end'): Promise<T> {
  let done = false;
  const watched = p.finally(() => {
    done = true;
  });
  await until(() => {
    if (!done) clock.advance(1_000);
    return done;
  }, what);
  return watched;
}

/**
 * Timers on a ManualClock that note every wait shorter than `shortMs` (the client's poll waits; its deadlines are
 * longer), so a test can tell when the client waits to poll and move the clock by exactly that much.
 */
export function recordingTimers(clock: ManualClock, shortMs: number): Timers & { waits: number[]; armed: number } {
  const t = {
    waits: [] as number[],
    armed: 0,
    after(ms: number, fn: () => void) {
      if (ms >= shortMs) return clock.after(ms, fn);
      t.waits.push(ms);
      t.armed++;
      const cancel = clock.after(ms, () => {
        t.armed--;
        fn();
      });
      return () => {
        t.armed--;
        cancel();
      };
    },
  };
  return t;
}

/**
 * What `p` (a send whose remote is polled) settles to, `{ v }` or `{ e }`, moving `clock` by each poll wait as `timers`
 * (recordingTimers) arms it: the client waits exactly the waits it chose, and the test reads them from `timers.waits`.
 */
export async function settlePolled<T>(clock: ManualClock, timers: { waits: number[]; armed: number }, p: Promise<T>): Promise<{ v: T } | { e: unknown }> {
  let done = false;
  const outcome = p.then(
    (v) => ({ v }),
    (e: unknown) => ({ e }),
  );
  void outcome.finally(() => {
    done = true;
  });
  while (!done) {
    await until(() => done || timers.armed > 0, 'a poll to be due');
    if (!done) clock.advance(timers.waits.at(-1)!);
  }
  return outcome;
}
