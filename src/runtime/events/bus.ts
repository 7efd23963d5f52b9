// Live fan-out of task events: in process for one instance; through Redis pub/sub when instances share a store.
import { randomUUID } from 'node:crypto';
import { Packr } from 'msgpackr';
import { connectRedis } from '../redis/connect.js';
import { redisChannels } from '../redis/keys.js';
import { withDeadline } from '../deadline.js';
import { TaskEvent } from '../../protocol/events.js';
import { CancelMessage, type CancelAnswer, type CancelAsk } from '../../protocol/cancel-asks.js';

/**
 * Hears one task's events as a store commit (or another instance) released them, in seq order. Every local subscriber
 * is handed the same array, which it must not change: what subscribers derive from it alike is made once per batch.
 */
export type EventListener = (events: readonly TaskEvent[]) => void;

export interface Subscription {
  ready: Promise<void>;
  unsubscribe(): void;
}

/** a cancel asked of whichever instance runs the task (`reply` names the asker and its ask, when it wants an answer) */
export type CancelRequest = Omit<CancelAsk, 't'>;
/** an answer to one ask, heard by its asker only */
export type CancelReply = Omit<CancelAnswer, 't'>;

export interface EventBus {
  publish(taskKey: string, events: readonly TaskEvent[]): void;
  /** `ready` resolves once events from every instance reach `fn` (read the store only after it) */
  subscribe(taskKey: string, fn: EventListener): Subscription;
  /** asks whichever instance runs the task to cancel it (every instance hears it) */
  requestCancel(req: CancelRequest): void;
  onCancelRequest(fn: (req: CancelRequest) => void): void;
  /** answers an ask: only the asker (`to`, its origin) hears it. Fire and forget, so the asker keeps a deadline */
  answerCancel(answer: CancelReply): void;
  onCancelAnswer(fn: (answer: CancelReply) => void): void;
  /** this process run's address among the instances that share the bus */
  readonly origin: string;
  /**
   * A message to one instance (`to` is its origin) or, with `to: 'all'`, to every other instance. Fire and forget:
   * a message nobody hears is lost, so what needs an answer carries its own deadline.
   */
  tell(to: string, msg: Uint8Array): void;
  /** messages told to this instance, directly or to all */
  onTold(fn: (msg: Uint8Array) => void): void;
  /** resolves when events cross between instances now (readiness); rejects with the reason when they do not */
  ping(): Promise<void>;
  close(): Promise<void>;
}

class LocalFanout {
  private readonly subs = new Map<string, Set<EventListener>>();

  deliver(taskKey: string, events: readonly TaskEvent[]): void {
    const set = this.subs.get(taskKey);
    if (!set) return;
    if (events.length === 0) return;
    for (const fn of [...set]) fn(events);
  }

  add(taskKey: string, fn: EventListener): { first: boolean; remove: () => boolean } {
    let set = this.subs.get(taskKey);
    const first = !set;
    if (!set) this.subs.set(taskKey, (set = new Set()));
    set.add(fn);
    return {
      first,
      remove: () => {
        set!.delete(fn);
        if (set!.size > 0) return false;
        this.subs.delete(taskKey);
        return true;
      },
    };
  }
}

export function createLocalBus(): EventBus {
  const fan = new LocalFanout();
  const cancelers: Array<(req: CancelRequest) => void> = [];
  const answered: Array<(answer: CancelReply) => void> = [];
  const origin = randomUUID();
  return {
    // one instance: nobody else to tell
    origin,
    tell: () => undefined,
    onTold: () => undefined,
    requestCancel: (req) => {
      for (const fn of cancelers) fn(req);
    },
    onCancelRequest: (fn) => void cancelers.push(fn),
    answerCancel: (answer) => {
      if (answer.to === origin) for (const fn of answered) fn(answer);
    },
    onCancelAnswer: (fn) => void answered.push(fn),
    publish: (k, events) => fan.deliver(k, events),
    subscribe: (k, fn) => {
      const h = fan.add(k, fn);
      return { ready: Promise.resolve(), unsubscribe: () => void h.remove() };
    },
    ping: async () => undefined,
    close: async () => undefined,
  };
}

const packr = new Packr({ useRecords: false });
const Envelope = (v: unknown) => {
  const o = v as { origin?: unknown; events?: unknown };
  if (typeof o?.origin !== 'string' || !Array.isArray(o.events)) return undefined;
  return { origin: o.origin, events: o.events.map((e) => TaskEvent.parse(e)) };
};

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A message on the cancel channel, checked (another process wrote it). An instance of an earlier version sends the
 * bare task key: that is an ask without a reply wanted, and it is acted on as before.
 */
function readCancelMessage(raw: Buffer): { t: 'ask'; req: CancelRequest } | { t: 'answer'; answer: CancelReply } | undefined {
  let m: ReturnType<typeof CancelMessage.safeParse> | undefined;
  try {
    m = CancelMessage.safeParse(packr.unpack(raw));
  } catch {
    m = undefined;
  }
  if (m?.success) {
    const d = m.data;
    if (d.t === 'answer') return { t: 'answer', answer: { to: d.to, ask: d.ask, outcome: d.outcome, ...(d.state && { state: d.state }) } };
    return { t: 'ask', req: { key: d.key, ...(d.reply && { reply: d.reply }), ...(d.requestId !== undefined && { requestId: d.requestId }) } };
  }
  let key: string;
  try {
    key = strictUtf8.decode(raw);
  } catch {
    return undefined;
  }
  // only a lookup key: splitTaskKey and the store read judge it further
  return raw.length <= 1000 && key.includes('/') ? { t: 'ask', req: { key } } : undefined;
}

/** Local subscribers hear local events at once; other instances hear them through one Redis channel per task. */
export async function createRedisBus(o: { url: string; prefix: string; commandTimeoutMs?: number; onError?: (e: Error) => void }): Promise<EventBus> {
  const origin = randomUUID();
  const fan = new LocalFanout();
  const settings = { url: o.url, commandTimeoutMs: o.commandTimeoutMs ?? 2_000, onError: o.onError };
  const pub = await connectRedis({ ...settings, name: 'a2a-gateway:bus-pub' });
  let sub: Awaited<ReturnType<typeof connectRedis>>;
  try {
    // the subscriber keeps what is asked while it reconnects: node-redis re-subscribes its channels on reconnection
    sub = await connectRedis({ ...settings, name: 'a2a-gateway:bus-sub', offlineQueue: true });
  } catch (e) {
    pub.destroy();
    throw e;
  }
  const deadline = { ms: settings.commandTimeoutMs, what: 'redis bus.subscribe' };
  const channels = redisChannels(o.prefix);
  const channel = channels.events;
  let closed = false;
  const active = new Map<string, Promise<void>>();
  const cancelers: Array<(req: CancelRequest) => void> = [];
  const answered: Array<(answer: CancelReply) => void> = [];
  const cancelChannel = channels.cancel;
  // asks and answers share one channel: cancels are rare, and an answer not to this instance is dropped here
  await sub.subscribe(
    cancelChannel,
    (raw: Buffer) => {
      const m = readCancelMessage(raw);
      if (m?.t === 'ask') for (const fn of cancelers) fn(m.req);
      else if (m?.t === 'answer' && m.answer.to === origin) for (const fn of answered) fn(m.answer);
    },
    true,
  );
  const told: Array<(msg: Uint8Array) => void> = [];
  const hear = (msg: Uint8Array) => {
    for (const fn of told) fn(msg);
  };
  await sub.subscribe(channels.instance(origin), hear, true);
  // a message to all comes back to its sender too: the envelope names the origin so it can skip its own
  await sub.subscribe(
    channels.instances,
    (raw: Buffer) => {
      let env: { o?: unknown; m?: unknown };
      try {
        env = packr.unpack(raw) as { o?: unknown; m?: unknown };
      } catch {
        return;
      }
      if (env?.o !== origin && env?.m instanceof Uint8Array) hear(env.m);
    },
    true,
  );
  return {
    origin,
    tell(to, msg) {
      if (closed) return;
      const sent = to === 'all' ? pub.publish(channels.instances, packr.pack({ o: origin, m: msg })) : pub.publish(channels.instance(to), Buffer.from(msg));
      void sent.catch(() => undefined);
    },
    onTold: (fn) => void told.push(fn),
    requestCancel(req) {
      if (!closed) void pub.publish(cancelChannel, packr.pack({ t: 'ask', ...req })).catch(() => undefined);
    },
    onCancelRequest: (fn) => void cancelers.push(fn),
    answerCancel(answer) {
      if (!closed) void pub.publish(cancelChannel, packr.pack({ t: 'answer', ...answer })).catch(() => undefined);
    },
    onCancelAnswer: (fn) => void answered.push(fn),
    publish(k, events) {
      fan.deliver(k, events);
      if (!closed) void pub.publish(channel(k), packr.pack({ origin, events })).catch(() => undefined);
    },
    subscribe(k, fn) {
      const h = fan.add(k, fn);
      let ready = active.get(k) ?? Promise.resolve();
      if (h.first) {
        const subscribed = sub.subscribe(
          channel(k),
          (msg: Buffer) => {
            let env: ReturnType<typeof Envelope>;
            try {
              env = Envelope(packr.unpack(msg));
            } catch {
              return;
            }
            if (env && env.origin !== origin) fan.deliver(k, env.events);
          },
          true,
        );
        // during an outage the stream goes on with this instance's events; node-redis re-subscribes on reconnection
        ready = withDeadline(subscribed, deadline).catch(() => undefined);
        active.set(k, ready);
      }
      return {
        ready,
        unsubscribe: () => {
          if (h.remove()) {
            active.delete(k);
            if (!closed) void sub.unsubscribe(channel(k)).catch(() => undefined);
          }
        },
      };
    },
    async ping() {
      if (!sub.isReady) throw new Error('the event subscriber connection is down');
      await withDeadline(pub.ping(), { ...deadline, what: 'redis bus.ping' });
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([pub.close(), sub.close()]);
    },
  };
}

/**
 * Tells every gateway instance on this Redis one message, from a process that is none of them (the CLI): the envelope
 * of `tell('all')`, from an origin no instance has. Resolves once Redis took it; rejects when Redis cannot be reached.
 */
export async function tellInstancesOnce(o: { url: string; prefix: string; commandTimeoutMs?: number }, msg: Uint8Array): Promise<void> {
  const pub = await connectRedis({ url: o.url, commandTimeoutMs: o.commandTimeoutMs ?? 2_000, name: 'a2a-gateway:cli-tell' });
  try {
    await pub.publish(redisChannels(o.prefix).instances, packr.pack({ o: `cli:${randomUUID()}`, m: msg }));
  } finally {
    pub.destroy();
  }
}
