// Bench module agent "ticker" (bench/streams.ts, fan-out rows): reports `working`, waits until the
// gate file named in its data part exists (the bench creates it once every subscriber is attached),
// then yields `events` status updates "tick 1" .. "tick N" as fast as it can, then `completed`.
// Data part: { events: number (1..1,000,000), gate?: absolute path, gateTimeoutMs?: number }.
import { access } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

function params(message) {
  for (const part of message.parts ?? []) {
    if (part.kind === 'data' && part.data && typeof part.data.events === 'number') return part.data;
  }
  return { events: 100 };
}

async function waitGate(path, timeoutMs, signal) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    try {
      await access(path);
      return true;
    } catch {
      await sleep(2, undefined, { signal });
    }
  }
  return false;
}

export default async function* ticker({ message, signal }) {
  const p = params(message);
  const events = Math.max(1, Math.min(1_000_000, Math.floor(p.events)));
  yield { type: 'status', state: 'working', message: { parts: [{ kind: 'text', text: 'waiting for the gate' }] } };
  if (typeof p.gate === 'string' && !(await waitGate(p.gate, p.gateTimeoutMs ?? 120_000, signal))) {
    yield { type: 'status', state: 'failed', message: { parts: [{ kind: 'text', text: 'gate never opened' }] } };
    return;
  }
  for (let i = 1; i <= events; i++) {
    yield { type: 'status', state: 'working', message: { parts: [{ kind: 'text', text: `tick ${i}` }] } };
  }
  yield { type: 'status', state: 'completed', message: { parts: [{ kind: 'text', text: `sent ${events} events` }] } };
}
