// The shared limiter: one checkLimit-2 round trip per check, so several gateway instances share each key's budget.
import { connectRedis } from '../redis/connect.js';
import { withDeadline } from '../deadline.js';
import type { Clock } from '../clock.js';
import type { RateLimits } from '../../protocol/records.js';
import type { LimitDecision, Limiter } from './types.js';
import { checkLimit } from './check-limit.js';
import { limiterKeys } from '../redis/keys.js';
import { runLua, type LuaClient } from './lua.js';
import { HOUR_MS, MINUTE_MS, assertLimits, decide } from './windows.js';
import { LimiterClosedError, LimiterReplyError } from './errors.js';

/** `clientName` shows in CLIENT LIST, so an operator can tell the limiter's connection apart */
type OwnConnection = { url: string; clientName?: string; commandTimeoutMs?: number; onError?: (err: Error) => void };
/** a client the caller owns: connected, and left open by close() */
type CallersClient = { client: LuaClient };

export type RedisLimiterOptions = { prefix: string; clock: Clock } & (OwnConnection | CallersClient);

type Reply = [allowed: number, m: number, mGate: number, h: number, hGate: number];

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const isReply = (r: unknown): r is Reply => Array.isArray(r) && r.length === 5 && r.every(isInt);

function parseReply(reply: unknown): Reply {
  if (isReply(reply)) return reply;
  throw new LimiterReplyError(reply);
}

export async function createRedisLimiter(opts: RedisLimiterOptions): Promise<Limiter> {
  const { prefix, clock } = opts;
  // a brace in the prefix would become the cluster hash tag and split a key's two lists across slots
  if (/[{}]/.test(prefix)) throw new RangeError(`limiter prefix must not contain braces: ${prefix}`);
  let client: LuaClient;
  let closeOwn: (() => Promise<void>) | undefined;
  if ('client' in opts) {
    client = opts.client;
  } else {
    // no offline queue: while Redis is away a check fails at once and the gateway's policy decides,
    // where a queued check would hold its request until reconnection
    const own = await connectRedis({
      url: opts.url,
      name: opts.clientName ?? 'a2a-gateway:limiter',
      commandTimeoutMs: opts.commandTimeoutMs ?? 2_000,
      onError: opts.onError,
    });
    client = own;
    closeOwn = () => own.close();
  }
  let closing: Promise<void> | undefined;
  const commandTimeoutMs = ('commandTimeoutMs' in opts ? opts.commandTimeoutMs : undefined) ?? 2_000;

  /** One checkLimit-2 round trip; `record` false only decides (a peek). */
  async function decideAt(key: string, limits: RateLimits, record: boolean): Promise<LimitDecision> {
    if (closing) throw new LimiterClosedError();
    assertLimits(limits);
    const now = Math.floor(clock.now());
    const reply = await withDeadline(
      runLua({
        client,
        script: checkLimit,
        keys: limiterKeys(prefix, key),
        args: [String(now), String(limits.perMinute), String(limits.perHour), String(MINUTE_MS), String(HOUR_MS), record ? '1' : '0'],
      }),
      { ms: commandTimeoutMs, what: record ? 'redis limiter.check' : 'redis limiter.peek' },
    );
    const [allowed, m, mGate, h, hGate] = parseReply(reply);
    return decide({
      now,
      allowed: allowed === 1,
      minute: { limit: limits.perMinute, count: m, gate: mGate },
      hour: { limit: limits.perHour, count: h, gate: hGate },
    });
  }

  return {
    shared: true,
    check: (key, limits) => decideAt(key, limits, true),
    peek: (key, limits) => decideAt(key, limits, false),
    close() {
      closing ??= closeOwn ? closeOwn() : Promise.resolve();
      return closing;
    },
  };
}
