// What the client keeps per remote endpoint (its pools, its credentials' state, its cached card), and the one way a
// request goes out with its proof of identity: a 401/403 to an OAuth token fetches a fresh one and tries once more.
import { createHash } from 'node:crypto';
import type { Dialect } from '../../protocol/model.js';
import type { Clock, Timers } from '../clock.js';
import type { Allowlist, Resolve } from '../net/guard.js';
import { createAuth, staticSecrets, type Auth } from './credentials.js';
import { createAgents, destroyAgents, httpOpen, readBody, type EndpointAgents, type HttpCall, type HttpResponse } from './http.js';
import { fetchToken } from './oauth.js';
import type { A2AClientSettings } from './settings.js';
import { OutboundError, type RemoteCard, type RemoteEndpoint } from './types.js';

/** What every part of the client is given. */
export interface ClientDeps {
  clock: Clock;
  timers: Timers;
  allowlist: Allowlist;
  resolve: Resolve;
  settings: A2AClientSettings;
}

/** A card as cached, with what its response said about keeping it. */
export interface CardEntry {
  card: RemoteCard;
  /** the dialect the card's protocolVersion names (undefined: none this client speaks) */
  detected: Dialect | undefined;
  /** the well-known URL it was read from (revalidation asks there) */
  from: string;
  etag: string | undefined;
  /** fresh until then (ms since the epoch); stale after: revalidated with the ETag, or fetched again */
  freshUntil: number;
}

export interface EndpointState {
  readonly agents: EndpointAgents;
  readonly auth: Auth;
  card: CardEntry | undefined;
  /** the card fetch under way, which concurrent discoveries share */
  discovering: Promise<CardEntry> | undefined;
}

/** An endpoint's identity: its URL and credentials (a changed secret or certificate starts afresh). */
const identityOf = (e: RemoteEndpoint): string => createHash('sha256').update(e.url).update('\0').update(JSON.stringify(e.credentials)).digest('base64url');

/**
 * The identity of an endpoint object, worked out once per object: a caller that keeps its endpoint (the relay, one
 * per local agent) asks for it several times per call. An endpoint is a value never changed in place.
 */
const identities = new WeakMap<RemoteEndpoint, string>();
const keyOf = (e: RemoteEndpoint): string => {
  let k = identities.get(e);
  if (k === undefined) identities.set(e, (k = identityOf(e)));
  return k;
};

export class EndpointStates {
  private readonly states = new Map<string, EndpointState>();
  constructor(private readonly deps: ClientDeps) {}

  get maxBytes(): number {
    return this.deps.settings.maxResponseBytes;
  }

  of(e: RemoteEndpoint): EndpointState {
    const k = keyOf(e);
    let st = this.states.get(k);
    if (st) return st;
    const c = e.credentials;
    const agents = createAgents({ maxFreeSockets: this.deps.settings.maxFreeSockets, ...(c.kind === 'mtls' && { tls: c }) });
    const auth = createAuth({
      credentials: c,
      clock: this.deps.clock,
      refreshMarginMs: this.deps.settings.tokenRefreshMarginMs,
      fetchToken: () => {
        if (c.kind !== 'oauth') throw new Error('unreachable: a token for non-OAuth credentials');
        return fetchToken(c, { ...this.transport(agents), timeoutMs: this.deps.settings.requestTimeoutMs });
      },
    });
    st = { agents, auth, card: undefined, discovering: undefined };
    this.states.set(k, st);
    return st;
  }

  /** What must not come back out of this endpoint's answers (its state's, or its credentials' when it has none yet or any more). */
  secretsOf(e: RemoteEndpoint): readonly string[] {
    return this.states.get(keyOf(e))?.auth.secrets() ?? staticSecrets(e.credentials);
  }

  forget(e: RemoteEndpoint): void {
    const k = keyOf(e);
    const st = this.states.get(k);
    if (!st) return;
    this.states.delete(k);
    destroyAgents(st.agents);
  }

  close(): void {
    for (const st of this.states.values()) destroyAgents(st.agents);
    this.states.clear();
  }

  /** The parts of an HTTP call that come from the client and the endpoint. */
  transport(agents: EndpointAgents) {
    const d = this.deps;
    return { agents, allowlist: d.allowlist, resolve: d.resolve, timers: d.timers, maxBytes: d.settings.maxResponseBytes };
  }
}

export type Call = Omit<HttpCall, 'agents' | 'allowlist' | 'resolve' | 'timers' | 'maxBytes'>;

const refusedStatus = (s: number) => s === 401 || s === 403;

/**
 * Sends `call` with the endpoint's proof; a 401/403 to an OAuth token drops the token and tries once more with a fresh
 * one. What comes back may still be a 401/403 (the caller words the refusal).
 */
export async function authorizedOpen(states: EndpointStates, st: EndpointState, call: Call): Promise<HttpResponse> {
  for (let attempt = 0; ; attempt++) {
    const proof = await st.auth.proof();
    const r = await httpOpen({ ...states.transport(st.agents), ...call, headers: { ...call.headers, ...proof.headers } });
    if (!refusedStatus(r.status) || attempt > 0 || !st.auth.refused(proof)) return r;
    // drain it so the socket goes back to the pool
    r.res.resume();
  }
}

/** authorizedOpen, with the whole body read. */
export async function authorizedExchange(states: EndpointStates, st: EndpointState, call: Call) {
  const r = await authorizedOpen(states, st, call);
  return { status: r.status, headers: r.headers, body: await readBody(r, states.maxBytes) };
}

export function unauthorized(status: number, url: string): OutboundError {
  return new OutboundError('unauthorized', `${new URL(url).origin} refused our credentials (HTTP ${status})`);
}
