// The spec's inbound pipeline for one JSON-RPC call: authenticate, check scope, rate-limit, execute (sanitize is at the exit).
import { RpcError, isRpcError } from '../protocol/errors.js';
import type { RpcCall } from '../protocol/envelope.js';
import { DEFAULT_RATE_LIMITS, type RateLimits } from '../protocol/records.js';
import { dialectOfVersionHeader, errorsInV1, isSupportedVersion, SUPPORTED_VERSIONS } from '../protocol/codec.js';
import { effectiveScopes } from '../protocol/scopes.js';
import { echoed } from '../protocol/one-line.js';
import { unsafeIntegerParams } from '../protocol/params.js';
import { type KeyHasher, presentedKey, verifyKey } from '../runtime/keys.js';
import { rateLimitHeaders } from '../runtime/limiter/headers.js';
import type { LimitDecision, Limiter } from '../runtime/limiter/types.js';
import { errorText, type Log } from '../runtime/log.js';
import type { GatewayMetrics } from '../runtime/metrics/metrics.js';
import type { KeyUsage } from './key-usage.js';
import { type AuthFailureThrottle, isAuthBlocked } from '../runtime/limiter/auth-throttle.js';
import { isStoreUnavailable } from '../runtime/store/errors.js';
import { storeUnavailable } from './errors.js';
import type { CallContext, GatewayParts } from './context.js';
import { methodRow } from './methods/table.js';

export interface PipelineDeps {
  parts: GatewayParts;
  limiter: Limiter;
  hasher: KeyHasher;
  defaultLimits?: RateLimits;
  log: Log;
  /** counters of calls and refusals (noMetrics when metrics are off) */
  metrics?: GatewayMetrics;
  /** notes when each key was last used (the dashboard shows it) */
  usage?: KeyUsage;
  /** failed authentications per client address (absent: not counted) */
  authFailures?: AuthFailureThrottle;
}

export interface CallInput {
  call: RpcCall;
  authorization: string | undefined;
  a2aVersion: string | undefined;
  urlAgentId: string | undefined;
  lastEventId: string | undefined;
  baseUrl: string;
  /** this call's id in logs and in the X-Request-Id response header */
  requestId: string;
  /** the peer's IP address as text, read when needed */
  address: () => string;
  /** one call of a batch: a streaming method is refused (-32600) there, before it spends budget */
  inBatch?: boolean;
}

export type CallOutcome = { ok: true; result: unknown; headers: Record<string, string> } | { ok: false; error: RpcError; headers: Record<string, string> };

/** What a refused key is told; a header that is there but not `Bearer <one token>` (`Bearer a b`, `Basic …`) is an invalid key, not a missing one. */
const WHY_TEXT = {
  missing: 'Unauthorized: missing Authorization: Bearer <API key>',
  malformed: 'Unauthorized: invalid API key',
  unknown: 'Unauthorized: invalid API key',
  revoked: 'Unauthorized: API key revoked',
  expired: 'Unauthorized: API key expired',
  damaged: 'Unauthorized: API key cannot be verified',
} as const;

/** An address past its budget of failed authentications: the same answer whatever key it presents now. */
const tooManyFailures = (d: LimitDecision) =>
  new RpcError('RATE_LIMITED', {
    message: 'Rate limit exceeded: too many failed authentications from this address; retry after the Retry-After seconds',
    headers: rateLimitHeaders(d),
    data: { window: d.window, retryAfterMs: d.retryAfterMs },
  });

export async function runCall(deps: PipelineDeps, input: CallInput): Promise<CallOutcome> {
  let headers: Record<string, string> = {};
  try {
    const { parts } = deps;
    const presented = presentedKey(input.authorization);
    // an address past its failures is refused whatever the key's check says (a lucky guess reads as a wrong one); its
    // lookup runs beside the key's read, and only for addresses that failed (runtime/limiter/auth-throttle.ts): none on the hot path
    const keyCheck = { hasher: deps.hasher, keys: parts.store.keys, clock: parts.clock, presented, log: deps.log };
    const check = await (deps.authFailures?.authenticate(input.address, presented !== undefined, verifyKey, keyCheck) ?? verifyKey(keyCheck));
    if (isAuthBlocked(check)) throw tooManyFailures(check.blocked);
    if (!check.ok) throw new RpcError('UNAUTHORIZED', { message: WHY_TEXT[check.why], headers: { 'WWW-Authenticate': 'Bearer' } });
    const key = check.key;
    if (!isSupportedVersion(input.a2aVersion)) {
      // the header (or ?A2A-Version=) is the caller's own text: repeated cut to a bound, never at its full length
      const requested = echoed(input.a2aVersion ?? '');
      throw new RpcError('VERSION_NOT_SUPPORTED', {
        message: `Version not supported: A2A-Version '${requested}'; this gateway speaks ${SUPPORTED_VERSIONS.join(', ')}`,
        data: { requested, supported: SUPPORTED_VERSIONS.join(', ') },
      });
    }
    deps.usage?.seen(key.id, parts.clock.now());
    const method = input.call.method;
    const row = methodRow(method);
    if (!row) {
      const named = echoed(method);
      throw new RpcError('METHOD_NOT_FOUND', { message: `Method not found: ${named}`, data: { method: named } });
    }
    const scopes = new Set(effectiveScopes(key.trust, key.scopes));
    const required = row.scope;
    if (!scopes.has(required)) {
      throw new RpcError('SCOPE_INSUFFICIENT', { message: `Scope insufficient: ${method} needs ${required}`, data: { required } });
    }
    // known before anything runs: refused like a 403 or an unknown method, it spends nothing
    if (input.inBatch && row.streaming) throw new RpcError('INVALID_REQUEST', { message: 'Invalid request: a streaming method cannot be part of a batch' });
    const decision = await deps.limiter.check(key.id, key.limits ?? deps.defaultLimits ?? DEFAULT_RATE_LIMITS);
    headers = rateLimitHeaders(decision);
    if (!decision.allowed) deps.metrics?.rateLimited(decision.window);
    if (!decision.allowed) throw new RpcError('RATE_LIMITED', { headers, data: { window: decision.window, retryAfterMs: decision.retryAfterMs } });
    const ctx: CallContext = {
      key,
      scopes,
      method,
      scope: row.scope,
      dialect: row.dialect ?? dialectOfVersionHeader(input.a2aVersion),
      errorsV1: errorsInV1({ methodDialect: row.dialect, version: input.a2aVersion }),
      rpcId: input.call.id,
      a2aVersion: input.a2aVersion,
      urlAgentId: input.urlAgentId,
      lastEventId: input.lastEventId,
      baseUrl: input.baseUrl,
      requestId: input.requestId,
    };
    // as a number past a double's range is (parseParams): the value JSON.parse made is not the one sent
    if (input.call.unsafeIntegerAt !== undefined) throw unsafeIntegerParams(input.call.params, input.call.unsafeIntegerAt);
    const result = await row.handler(input.call.params, ctx, parts);
    return { ok: true, result, headers };
  } catch (e) {
    if (isRpcError(e)) return { ok: false, error: e, headers: { ...headers, ...e.headers } };
    if (isStoreUnavailable(e)) {
      deps.log('store unavailable', { method: input.call.method, requestId: input.requestId, error: errorText(e) });
      return { ok: false, error: storeUnavailable(), headers: { ...headers, 'Retry-After': '1' } };
    }
    deps.log('internal error', { method: input.call.method, requestId: input.requestId, error: errorText(e) });
    return { ok: false, error: new RpcError('INTERNAL_ERROR', { message: 'Internal error while executing the request' }), headers };
  }
}
