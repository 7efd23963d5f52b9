// Reading Retry-After: delta-seconds, the three HTTP-date forms, a date read against the answer's own Date header, and
// everything else (what Date.parse would happily misread) refused.
import t from 'tap';
import { parseHttpDate, retryAfterMs } from '../../src/protocol/retry-after.js';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

t.test('delta-seconds', async (t) => {
  t.equal(retryAfterMs('45', { now: NOW }), 45_000);
  t.equal(retryAfterMs(' 0 ', { now: NOW }), 0, 'zero, spaces trimmed');
  t.equal(retryAfterMs('99999999999999999999', { now: NOW }), 1e12, 'a huge value stays a finite number');
  t.equal(retryAfterMs(undefined, { now: NOW }), undefined, 'absent');
});

t.test('the three HTTP-date forms', async (t) => {
  const at = Date.UTC(1994, 10, 6, 8, 49, 37);
  t.equal(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT', NOW), at, 'IMF-fixdate');
  t.equal(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', NOW), at, 'RFC 850 (a two-digit year more than 50 years ahead is of the last century)');
  t.equal(parseHttpDate('Sun Nov  6 08:49:37 1994', NOW), at, 'asctime');
  t.equal(parseHttpDate('Thursday, 01-Jan-26 12:00:30 GMT', NOW), NOW + 30_000, 'RFC 850 in this century');
  t.equal(retryAfterMs(new Date(NOW + 30_000).toUTCString(), { now: NOW }), 30_000, 'a date 30 s ahead');
  t.equal(retryAfterMs(new Date(NOW - 30_000).toUTCString(), { now: NOW }), 0, 'a date past: no wait');
  const date = new Date(NOW - 3_600_000).toUTCString();
  t.equal(retryAfterMs(new Date(NOW - 3_600_000 + 20_000).toUTCString(), { now: NOW, date }), 20_000, "read against the answer's Date");
  t.equal(retryAfterMs(new Date(NOW + 20_000).toUTCString(), { now: NOW, date: 'yesterday' }), 20_000, 'a bad Date header: against now');
});

t.test('malformed values are refused', async (t) => {
  for (const v of [
    '',
    'soon',
    '1.5',
    '-5',
    '+5',
    '12abc',
    '2026-01-01T12:00:30Z',
    'Thu, 32 Jan 2026 00:00:00 GMT',
    'Fri, 01 Jan 2026 12:00:30 GMT',
    'Thu, 01 Jan 2026 24:00:00 GMT',
    'Thu, 01 Jan 2026 12:00:30 UTC',
    'Thu,  01 Jan 2026 12:00:30 GMT',
    'Sat, 29 Feb 2025 12:00:00 GMT',
  ]) {
    t.equal(retryAfterMs(v, { now: NOW }), undefined, JSON.stringify(v));
  }
});
