// The one rule for cutting a live stream's slow reader (src/protocol/stream-lag.ts): past the bound plus one event,
// and the same default bound at both writers that use it, the gateway's SSE and the relay admin UI's live streams.
import t from 'tap';
import { LIVE_STREAM_DEFAULTS } from '../../relay/admin/live-streams.js';
import { parseConfig } from '../../src/config/parse.js';
import { fallenBehind, MAX_UNREAD_BYTES } from '../../src/protocol/stream-lag.js';

t.test('a reader is behind once what waits for it is past the bound plus the write its socket holds', async (t) => {
  t.notOk(fallenBehind({ unsent: 1000, bound: 1000 }), 'at the bound: still served');
  t.ok(fallenBehind({ unsent: 1001, bound: 1000 }), 'one byte past it: cut');
  t.notOk(fallenBehind({ unsent: 1000 + 5000, bound: 1000, inFlight: 5000 }), 'a write the socket holds is not counted');
  t.ok(fallenBehind({ unsent: 1001 + 5000, bound: 1000, inFlight: 5000 }), 'what is past it is');
});

t.test('the gateway and the relay admin UI start from the same bound', async (t) => {
  t.equal(MAX_UNREAD_BYTES, 1024 * 1024);
  t.equal(parseConfig({}).streaming.maxBufferedBytes, MAX_UNREAD_BYTES, "the gateway's streaming.maxBufferedBytes");
  t.equal(LIVE_STREAM_DEFAULTS.maxBufferedBytes, MAX_UNREAD_BYTES, "the relay admin UI's live streams");
});
