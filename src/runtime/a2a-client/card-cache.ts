// Discovery: the remote's Agent Card from its well-known path (agent-card.json, else agent.json), validated, cached as
// its response says (Cache-Control max-age, capped / no-cache / no-store, Age; else the default TTL), revalidated with
// its ETag.
import type { IncomingHttpHeaders } from 'node:http';
import type { Dialect } from '../../protocol/model.js';
import { tooDeepAt } from '../../protocol/json-depth.js';
import { dialectOfCard, jsonRpcUrlOf, parseRemoteCard, type RemoteAgentCard } from '../../protocol/remote-card.js';
import { parseRemoteJson, unkeptInRemoteJson } from '../../protocol/remote-json.js';
import { authorizedExchange, unauthorized, type CardEntry, type ClientDeps, type EndpointState, type EndpointStates } from './endpoint.js';
import { MAX_ANSWER_DEPTH } from './jsonrpc.js';
import { OutboundError, type Discovered, type RemoteEndpoint } from './types.js';

/** Rev B's path first (0.3 servers, this gateway), then rev A's (0.1 servers). */
export const CARD_PATHS = ['.well-known/agent-card.json', '.well-known/agent.json'] as const;

/** Statuses that say "no card here" (so the other path is tried), as opposed to a failure. */
const NOT_HERE = new Set([404, 405, 410]);

/** The well-known URLs under the endpoint's base URL (its path kept: `.../agents/x` has its cards under `.../agents/x/`). */
export function cardUrls(base: string): string[] {
  const u = new URL(base);
  if (!u.pathname.endsWith('/')) u.pathname += '/';
  u.search = '';
  u.hash = '';
  return CARD_PATHS.map((p) => new URL(p, u).toString());
}

export interface Freshness {
  /** no-store: the card is not kept */
  store: boolean;
  freshUntil: number;
}

const header = (h: IncomingHttpHeaders, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

export interface TtlPolicy {
  /** without max-age */
  defaultTtlMs: number;
  /** the most a max-age is honoured for: a remote's years-long max-age would keep a card past every change of it */
  maxTtlMs: number;
}

/** How long a response may be used without asking again (RFC 9111, as a private cache: max-age, not s-maxage). */
export function freshnessOf(h: IncomingHttpHeaders, now: number, ttl: TtlPolicy): Freshness {
  const cc = (header(h, 'cache-control') ?? '').toLowerCase();
  const directives = new Map<string, string | undefined>();
  for (const d of cc.split(',')) {
    const [k, v] = d.trim().split('=', 2) as [string, string | undefined];
    if (k) directives.set(k, v?.replace(/^"|"$/g, ''));
  }
  if (directives.has('no-store')) return { store: false, freshUntil: now };
  if (directives.has('no-cache')) return { store: true, freshUntil: now };
  const maxAge = Number(directives.get('max-age'));
  if (directives.has('max-age') && Number.isFinite(maxAge) && maxAge >= 0) {
    const age = Number(header(h, 'age'));
    const leftMs = (maxAge - (Number.isFinite(age) && age > 0 ? age : 0)) * 1000;
    return { store: true, freshUntil: now + Math.min(leftMs, ttl.maxTtlMs) };
  }
  return { store: true, freshUntil: now + ttl.defaultTtlMs };
}

function readCard(body: Buffer, from: string): Omit<CardEntry, 'etag' | 'freshUntil'> {
  let json: unknown;
  const text = body.toString('utf8');
  try {
    json = parseRemoteJson(text);
  } catch {
    throw new OutboundError('card_invalid', `the Agent Card at ${from} is not JSON`);
  }
  // a card is shown (the dashboard's test) and scrubbed of secrets by recursive readers: no deeper than an answer
  const deep = tooDeepAt(json, { limit: MAX_ANSWER_DEPTH, root: 'card' });
  if (deep !== undefined)
    throw new OutboundError('card_invalid', `the Agent Card at ${from} nests deeper than ${MAX_ANSWER_DEPTH} levels (at ${deep.slice(0, 200)})`);
  // judged as an answer's result is: all of a card is read (its endpoint, its skills; the dashboard shows it whole)
  const unkept = unkeptInRemoteJson(text, json);
  if (unkept !== undefined) throw new OutboundError('card_invalid', `the Agent Card at ${from} ${unkept}`);
  const v = parseRemoteCard(json);
  if (!v.ok) throw new OutboundError('card_invalid', `the Agent Card at ${from} is not valid: ${v.message}`);
  const c = v.card;
  const detected = dialectOfCard(c);
  const url = endpointUrl(c, detected, from);
  return {
    card: {
      name: c.name,
      description: c.description,
      url,
      version: c.version,
      streaming: c.capabilities.streaming === true,
      raw: json as Record<string, unknown>,
    },
    detected,
    from,
  };
}

/** The card's JSON-RPC endpoint for a dialect (a card may offer 1.0 and 0.3 at different URLs), read against `from`. */
function endpointUrl(c: RemoteAgentCard, dialect: Dialect | undefined, from: string): string {
  const rpc = jsonRpcUrlOf(c, dialect);
  if (rpc === undefined)
    throw new OutboundError('card_invalid', `the Agent Card at ${from} offers no JSON-RPC interface (preferredTransport ${c.preferredTransport})`);
  try {
    // a relative endpoint is read against the card's own URL
    return new URL(rpc, from).toString();
  } catch {
    throw new OutboundError('card_invalid', `the Agent Card at ${from} is not valid: url: '${rpc}' is not a URL`);
  }
}

export interface CardCacheOptions {
  deps: ClientDeps;
  states: EndpointStates;
}

const ttlOf = (o: CardCacheOptions): TtlPolicy => ({ defaultTtlMs: o.deps.settings.defaultCardTtlMs, maxTtlMs: o.deps.settings.maxCardTtlMs });

/** One GET of a card URL; `etag` makes it conditional. Answers the response, or undefined when there is no card there. */
async function getCard(o: CardCacheOptions, st: EndpointState, url: string, etag?: string) {
  const r = await authorizedExchange(o.states, st, {
    url,
    method: 'GET',
    headers: { accept: 'application/json', ...(etag !== undefined && { 'if-none-match': etag }) },
    timeoutMs: o.deps.settings.requestTimeoutMs,
  });
  if (r.status === 401 || r.status === 403) throw unauthorized(r.status, url);
  return r;
}

function entryOf(o: CardCacheOptions, r: { headers: IncomingHttpHeaders; body: Buffer }, from: string): { entry: CardEntry; store: boolean } {
  const f = freshnessOf(r.headers, o.deps.clock.now(), ttlOf(o));
  const etag = header(r.headers, 'etag');
  return { entry: { ...readCard(r.body, from), etag, freshUntil: f.freshUntil }, store: f.store };
}

async function fetchFresh(o: CardCacheOptions, st: EndpointState, base: string): Promise<{ entry: CardEntry; store: boolean }> {
  const tried: string[] = [];
  for (const url of cardUrls(base)) {
    const r = await getCard(o, st, url);
    if (r.status >= 200 && r.status < 300) return entryOf(o, r, url);
    tried.push(`${url} (HTTP ${r.status}${r.status >= 300 && r.status < 400 ? ', redirects are not followed' : ''})`);
    if (!NOT_HERE.has(r.status)) break;
  }
  throw new OutboundError('card_invalid', `no Agent Card: ${tried.join(', ')}`);
}

/** A stale entry asks again with its ETag: 304 keeps it (fresh for as long as the 304 says), 200 replaces it. */
async function revalidate(o: CardCacheOptions, st: EndpointState, e: CardEntry, base: string): Promise<{ entry: CardEntry; store: boolean }> {
  const r = await getCard(o, st, e.from, e.etag);
  if (r.status === 304) {
    const f = freshnessOf(r.headers, o.deps.clock.now(), ttlOf(o));
    return { entry: { ...e, etag: header(r.headers, 'etag') ?? e.etag, freshUntil: f.freshUntil }, store: f.store };
  }
  if (r.status >= 200 && r.status < 300) return entryOf(o, r, e.from);
  // the card moved or went: start again from the first path
  return fetchFresh(o, st, base);
}

function discovered(e: CardEntry, endpoint: RemoteEndpoint): Discovered {
  const dialect = endpoint.dialect ?? e.detected;
  if (dialect === undefined) {
    const v = typeof e.card.raw.protocolVersion === 'string' ? e.card.raw.protocolVersion : '';
    throw new OutboundError(
      'card_invalid',
      `the Agent Card at ${e.from} names protocolVersion '${v}', which this client does not speak (0.1, 0.2, 0.3, 1.0); force a dialect to try anyway`,
    );
  }
  if (endpoint.dialect === undefined || endpoint.dialect === e.detected) return { card: e.card, dialect };
  // a forced dialect other than the card's own: its endpoint may be another of the card's interfaces
  const parsed = parseRemoteCard(e.card.raw);
  const url = parsed.ok ? endpointUrl(parsed.card, dialect, e.from) : e.card.url;
  return { card: { ...e.card, url }, dialect };
}

/** The endpoint's card and dialect: from the cache while fresh, else revalidated or fetched (once for concurrent callers). */
export async function discover(o: CardCacheOptions, endpoint: RemoteEndpoint, opts: { fresh?: boolean } = {}): Promise<Discovered> {
  const st = o.states.of(endpoint);
  const cur = st.card;
  if (cur && !opts.fresh && o.deps.clock.now() < cur.freshUntil) return discovered(cur, endpoint);
  st.discovering ??= (async () => {
    try {
      const got = cur?.etag !== undefined ? await revalidate(o, st, cur, endpoint.url) : await fetchFresh(o, st, endpoint.url);
      st.card = got.store ? got.entry : undefined;
      return got.entry;
    } finally {
      st.discovering = undefined;
    }
  })();
  return discovered(await st.discovering, endpoint);
}
