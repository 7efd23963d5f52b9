// Opening a relay's tunnel: who may upgrade (a live key that a relay record names, behind the per-address throttle
// of failed authentications) and the refusals' answers (503 with Retry-After when the store cannot be reached), then the session its hello opens: the hello checked against
// the record, the announcement stored, a TunnelSession on the socket that ends when its key lapses, and the welcome.
// The links themselves (which tunnels are live, their agents, what the other instances are told) are the hub's: it
// lends them through `TunnelLinks`.
import { ERRORS } from '../../protocol/errors.js';
import type { KeyRecord } from '../../protocol/records.js';
import type { RelayRecord } from '../../protocol/relays.js';
import { echoed } from '../../protocol/one-line.js';
import { boundedCard } from '../../protocol/relay-card-bounds.js';
import { TUNNEL_VERSION, type RelayAgentCard } from '../../protocol/tunnel.js';
import type { Clock, Timers } from '../../runtime/clock.js';
import { type KeyHasher, presentedKey, verifyKey } from '../../runtime/keys.js';
import { rateLimitHeaders } from '../../runtime/limiter/headers.js';
import type { LimitDecision } from '../../runtime/limiter/types.js';
import { errorText } from '../../runtime/log.js';
import { recordAnnouncement, relayOfKey } from '../../runtime/relay-admin.js';
import { isStoreUnavailable } from '../../runtime/store/errors.js';
import type { Store } from '../../runtime/store/types.js';
import type { TunnelOpen, TunnelSocket } from '../api.js';
import { type AuthFailureThrottle, isAuthBlocked } from '../../runtime/limiter/auth-throttle.js';
import type { KeyWatch } from '../key-watch.js';
import { encodeFrame } from './frames.js';
import { handshakeSession, type Hello } from './handshake.js';
import { HealthReports, loggedHealth } from './health-reports.js';
import type { RelayLink } from './link.js';
import { CLOSE, TunnelSession } from './tunnel-session.js';

/** What opening a tunnel needs of the hub's links. */
export interface TunnelLinks {
  /** the link of a relay record, made when first asked */
  linkOf(rec: RelayRecord): RelayLink;
  /** of a hello's cards, those the relay may register */
  acceptable(link: RelayLink, rec: RelayRecord, cards: readonly RelayAgentCard[]): RelayAgentCard[];
  /** registers the cards as the relay's agents; answers those registered */
  register(link: RelayLink, rec: RelayRecord, cards: readonly RelayAgentCard[]): RelayAgentCard[];
  /** tells every instance this one holds the link's tunnel */
  announce(link: RelayLink): void;
  /** tells every instance this one no longer holds the link's tunnel of `since` */
  released(link: RelayLink, since: number): void;
}

export interface TunnelOpenDeps {
  store: Pick<Store, 'keys' | 'relays'>;
  hasher: KeyHasher;
  keyWatch: KeyWatch;
  clock: Clock;
  timers: Timers;
  log: (msg: string, fields?: Record<string, unknown>) => void;
  /** failed authentications per client address, the A2A endpoint's (absent: not counted) */
  authFailures?: AuthFailureThrottle;
  links: TunnelLinks;
}

/** An address past its budget of failed authentications: the upgrade is refused whatever key it presents now. */
const tooManyFailures = (d: LimitDecision): TunnelOpen => ({
  ok: false,
  status: 429,
  message: 'Too many failed authentications from this address: rate limit exceeded; retry after the Retry-After seconds',
  headers: rateLimitHeaders(d),
});

const UNAUTHORIZED = {
  missing: 'missing Authorization: Bearer <API key>',
  malformed: 'invalid API key',
  unknown: 'invalid API key',
  revoked: 'API key revoked',
  expired: 'API key expired',
  damaged: 'API key cannot be verified',
} as const;

/** The store cannot be reached: the A2A endpoint's and the admin API's answer, so a relay comes back when told. */
const STORE_UNAVAILABLE: TunnelOpen = { ok: false, status: 503, message: ERRORS.STORE_UNAVAILABLE.message, headers: { 'Retry-After': '1' } };

/** Decides a tunnel's upgrade from its Authorization header; an accepted one waits for its hello. */
export async function openTunnel(d: TunnelOpenDeps, req: { authorization: string | undefined; address: string }): Promise<TunnelOpen> {
  try {
    return await decide(d, req);
  } catch (e) {
    // the key's read, the address's budget or the relay record: a 500 would tell a relay nothing of when to come back
    if (!isStoreUnavailable(e)) throw e;
    d.log('relay tunnel refused: store unavailable', { error: errorText(e) });
    return STORE_UNAVAILABLE;
  }
}

async function decide(d: TunnelOpenDeps, req: { authorization: string | undefined; address: string }): Promise<TunnelOpen> {
  const presented = presentedKey(req.authorization);
  const keyCheck = { hasher: d.hasher, keys: d.store.keys, clock: d.clock, presented, log: d.log };
  const check = await (d.authFailures?.authenticate(req.address, presented !== undefined, verifyKey, keyCheck) ?? verifyKey(keyCheck));
  if (isAuthBlocked(check)) {
    // refused before its key was looked at, or by this very failure (then the log says what was wrong with the key)
    d.log('relay tunnel refused', { why: check.failed && !check.failed.ok ? check.failed.why : 'too many failed authentications from this address' });
    return tooManyFailures(check.blocked);
  }
  if (!check.ok) {
    d.log('relay tunnel refused', { why: check.why });
    return { ok: false, status: 401, message: `Unauthorized: ${UNAUTHORIZED[check.why]}` };
  }
  const rec = await relayOfKey(d.store.relays, check.key.id, check.key.workspaceId);
  if (!rec) {
    d.log('relay tunnel refused', { why: 'the key opens no relay', key: check.key.id, workspace: check.key.workspaceId });
    return { ok: false, status: 403, message: 'Forbidden: this key is not the key of a registered relay (a2a-gateway relays add)' };
  }
  return {
    ok: true,
    session: handshakeSession({
      who: { workspace: rec.workspace, relay: rec.name },
      timers: d.timers,
      log: d.log,
      greet: (o) => greet(d, rec, check.key, o),
    }),
  };
}

/** Registers a relay's hello: its announced agents (those it may hold) and a live session on its socket. */
async function greet(
  d: TunnelOpenDeps,
  rec: RelayRecord,
  key: KeyRecord,
  o: { hello: Hello; socket: TunnelSocket; gone: () => boolean },
): Promise<TunnelSession | undefined> {
  const { hello, socket } = o;
  const who = { workspace: rec.workspace, relay: rec.name };
  if (hello.workspace !== rec.workspace) {
    // the relay's own text, of any length up to the frame bound: repeated back (and logged) as one short line
    const announced = echoed(hello.workspace);
    d.log('relay refused: hello names another workspace', { ...who, announced });
    socket.send(encodeFrame({ t: 'error', message: `this key's relay serves workspace ${rec.workspace}, not ${announced}` }));
    socket.close(CLOSE.policy, 'workspace mismatch');
    return undefined;
  }
  // cut to the cards' bounds: the agent is announced with what fits, and its operator reads in the log what was cut
  const cards = hello.agents.map((c) => {
    const b = boundedCard(c);
    if (b.cuts.length > 0) d.log('relay agent card cut to its bounds', { ...who, agent: c.name, cut: b.cuts.join('; ') });
    return b.card;
  });
  const link = d.links.linkOf(rec);
  link.session?.end('replaced by a new tunnel of the same relay', { code: CLOSE.replaced, reason: 'replaced by a new tunnel' });
  let stored: RelayRecord | undefined;
  try {
    stored = await recordAnnouncement({ relays: d.store.relays, clock: d.clock }, rec, d.links.acceptable(link, rec, cards));
  } catch (e) {
    d.log('relay announcement not stored', { ...who, error: errorText(e) });
    socket.close(CLOSE.goingAway, 'store unavailable; retry');
    return undefined;
  }
  if (!stored) {
    // removed (or given another key) since the upgrade: writing its announcement would bring the record back
    d.log('relay refused: removed since its tunnel opened', who);
    socket.send(encodeFrame({ t: 'error', message: `relay ${rec.name} was removed from workspace ${rec.workspace}` }));
    socket.close(CLOSE.policy, 'relay removed');
    return undefined;
  }
  if (o.gone()) return undefined;
  // another tunnel of this relay greeted while this one was stored (two hellos at once): this later one is the relay's
  link.session?.end('replaced by a new tunnel of the same relay', { code: CLOSE.replaced, reason: 'replaced by a new tunnel' });
  const accepted = d.links.register(link, stored, d.links.acceptable(link, stored, cards));
  const unwatch = d.keyWatch.watch(key.id, (why) => {
    d.log('relay disconnected: its key lapsed', { ...who, why });
    s.end(`key ${why}`, { code: CLOSE.keyLapsed, reason: `key ${why}` });
  });
  const reports = new HealthReports({
    clock: d.clock,
    timers: d.timers,
    health: link.health,
    tell: (changed) => {
      if (link.session !== s) return;
      d.log('relay health', { ...who, agents: changed.map(loggedHealth).join(', ') });
      d.links.announce(link);
    },
  });
  const s: TunnelSession = new TunnelSession({
    socket,
    clock: d.clock,
    timers: d.timers,
    who,
    log: d.log,
    announced: new Set(hello.agents.map((c) => c.name)),
    onHealth: (agents) => {
      if (link.session !== s) return;
      // a report on an agent announced but not held here (refused: it would shadow another) is ignored
      reports.take(agents.filter((a) => link.cards.has(a.name)));
    },
    onEnd: (why) => {
      reports.stop();
      unwatch();
      if (link.session === s) {
        link.session = undefined;
        link.health.clear();
        d.links.released(link, s.since);
      }
      d.log('relay tunnel ended; its agents are offline', { ...who, why });
    },
  });
  link.session = s;
  link.sessionKeyId = key.id;
  link.remote = undefined;
  // the previous session's reports say nothing of this one: its welcome-time snapshot follows
  link.health.clear();
  s.send({
    t: 'welcome',
    v: TUNNEL_VERSION,
    relay: rec.name,
    agents: accepted.map((c) => ({ name: c.name, trust: stored.agents[c.name]?.trust ?? 'execute' })),
  });
  d.log('relay connected', { ...who, agents: accepted.map((c) => c.name).join(',') });
  d.links.announce(link);
  return s;
}
