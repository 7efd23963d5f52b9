// The admin UI's plain words, against every reason the relay can give for a tunnel that ended: the catalogue of
// reasons (relay/reasons.ts) is enumerated, one or more samples per builder (a builder added without samples fails
// the typecheck), and each close code of the wire with it; a reason with no entry would reach the operator raw.
import t from 'tap';
import { plainWords } from '../../relay/admin/plain-words.js';
import { tunnelReasons } from '../../relay/reasons.js';
import { WELCOME_TIMEOUT_MS } from '../../relay/session.js';
import { TUNNEL_CLOSE } from '../../src/protocol/tunnel.js';

const r = tunnelReasons;
const SAMPLES: Record<keyof typeof tunnelReasons, string[]> = {
  closed: [r.closed()],
  socketError: [
    r.socketError('connect ECONNREFUSED 127.0.0.1:9'),
    r.socketError('getaddrinfo ENOTFOUND gateway.example'),
    r.socketError('getaddrinfo EAI_AGAIN gateway.example'),
    r.socketError('read ECONNRESET'),
    r.socketError('socket hang up'),
    r.socketError('connect ETIMEDOUT 10.0.0.1:443'),
    r.socketError('connect EHOSTUNREACH 10.0.0.1:443'),
    r.socketError('self-signed certificate'),
    r.socketError('unable to verify the first certificate'),
    r.socketError('Invalid WebSocket frame: RSV1 must be clear'),
    r.socketError('Max payload size exceeded'),
  ],
  noPong: [r.noPong(45)],
  noWelcome: [r.noWelcome(WELCOME_TIMEOUT_MS / 1000)],
  gatewaySaid: [r.gatewaySaid('relay home was removed from workspace ws1'), r.gatewaySaid('a text frame (frames are binary msgpack)')],
  keyRefused: [r.keyRefused(401), r.keyRefused(403)],
  upgradeAnswered: [
    r.upgradeAnswered(404, 'Not Found'),
    r.upgradeAnswered(400),
    r.upgradeAnswered(429, 'Too Many Requests'),
    r.upgradeAnswered(503),
    r.upgradeAnswered(502, 'Bad Gateway'),
  ],
  closedWith: [
    ...Object.values(TUNNEL_CLOSE).map((code) => r.closedWith(r.closed(), code, 'x')),
    ...Object.values(TUNNEL_CLOSE).map((code) => r.closedWith(r.closed(), code, '')),
    r.closedWith(r.closed(), TUNNEL_CLOSE.goingAway, 'store unavailable; retry'),
    r.closedWith(r.closed(), 1011, ''),
  ],
  keyLapsed: [r.keyLapsed(r.closedWith(r.closed(), TUNNEL_CLOSE.keyLapsed, 'key revoked'))],
  stopping: [r.stopping()],
  crashed: [r.crashed('TypeError: x is undefined')],
};

t.test('every reason the relay can give has plain words', async (t) => {
  for (const [builder, samples] of Object.entries(SAMPLES)) {
    t.ok(samples.length > 0, `${builder} has samples`);
    for (const s of samples) t.not(plainWords(s), s, `${builder}: "${s}" has an entry`);
  }
});

t.test('the words say what happened', async (t) => {
  const said = (reason: string, words: RegExp, what: string) => t.match(plainWords(reason), words, what);
  said(r.noWelcome(30), /never (answered|welcomed)|hello/, 'the welcome timeout names the unanswered hello');
  said(r.closedWith(r.closed(), TUNNEL_CLOSE.silent, 'no pong'), /relay/, "the gateway's no-pong close is the relay's silence, not the gateway's");
  t.notMatch(plainWords(r.closedWith(r.closed(), TUNNEL_CLOSE.silent, 'no pong')), /gateway stopped answering/, 'not the reverse');
  said(r.noPong(45), /gateway stopped answering pings/, "the relay's own no-pong is the gateway's silence");
  said(r.closedWith(r.closed(), TUNNEL_CLOSE.goingAway, 'store unavailable; retry'), /store/, 'a store outage is not a shutdown');
  said(r.closedWith(r.closed(), TUNNEL_CLOSE.replaced, 'replaced by a new tunnel'), /another tunnel|replaced/, 'a replaced tunnel');
  said(r.upgradeAnswered(404, 'Not Found'), /gateway_url/, 'a 404 points at gateway_url');
});
