// The secret box: JSON sealed with AES-256-GCM under a key derived from the server secret; any change or wrong key is refused.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { secretBox } from '../../src/runtime/secret-box.js';

const secret = randomBytes(48);
const box = secretBox({ secret, purpose: 'connection-credentials' });
const ctx = { context: 'conn_1' };

/** Flips one bit of byte `i` of the decoded sealed value and re-encodes it. */
function flip(sealed: string, i: number): string {
  const bytes = Buffer.from(sealed, 'base64');
  bytes[i]! ^= 0x01;
  return bytes.toString('base64');
}

t.test('a sealed value opens to what was sealed, and shows none of it', async (t) => {
  const values = [
    { kind: 'bearer', token: 'tok-very-secret-0001' },
    { kind: 'mtls', cert: '-----BEGIN CERTIFICATE-----\nMIIB…\n-----END CERTIFICATE-----\n', key: 'ünïcödé 🔑' },
    'plain string',
    42,
    null,
    [1, 'two', { three: [3] }],
  ];
  for (const v of values) {
    const sealed = box.seal(v, ctx);
    t.match(sealed, /^[A-Za-z0-9+/]+={0,2}$/, 'base64');
    t.strictSame(box.open(sealed, ctx), v);
    t.equal(Buffer.from(sealed, 'base64')[0], 1, 'starts with the version byte');
  }
  const sealed = box.seal({ token: 'tok-very-secret-0001' }, ctx);
  t.notMatch(sealed, /tok-very-secret/, 'not in the base64');
  t.notOk(Buffer.from(sealed, 'base64').includes('tok-very-secret'), 'not in the bytes');
  t.equal(Buffer.from(sealed, 'base64').length, 1 + 12 + 16 + JSON.stringify({ token: 'tok-very-secret-0001' }).length, 'version, IV, tag, ciphertext');
});

t.test('each seal has its own IV', async (t) => {
  const a = box.seal({ token: 'same' }, ctx);
  const b = box.seal({ token: 'same' }, ctx);
  t.not(a, b, 'the same value seals differently each time');
  t.not(Buffer.from(a, 'base64').subarray(1, 13).toString('hex'), Buffer.from(b, 'base64').subarray(1, 13).toString('hex'));
  t.strictSame(box.open(a, ctx), box.open(b, ctx));
});

t.test('a wrong server secret, purpose or context is refused with a stable code', async (t) => {
  const sealed = box.seal({ token: 't' }, ctx);
  const unopenable = { name: 'SecretBoxError', code: 'ERR_SEALED_UNOPENABLE', message: /another server secret/ };
  t.throws(() => secretBox({ secret: randomBytes(48), purpose: 'connection-credentials' }).open(sealed, ctx), unopenable, 'another secret');
  t.throws(() => box.open(sealed, { context: 'conn_2' }), unopenable, "another record's context: a sealed value cannot be moved");
  // the same secret given as a new Buffer (as a restarted server reads it) opens it
  t.strictSame(secretBox({ secret: Buffer.from(secret), purpose: 'connection-credentials' }).open(sealed, ctx), { token: 't' });
});

t.test('every changed byte is refused, never opened to garbage', async (t) => {
  const sealed = box.seal({ kind: 'apikey', header: 'X-API-Key', value: 'k-123' }, ctx);
  const n = Buffer.from(sealed, 'base64').length;
  for (let i = 1; i < n; i++) {
    t.throws(() => box.open(flip(sealed, i), ctx), { code: 'ERR_SEALED_UNOPENABLE' }, `byte ${i}`);
  }
  t.throws(() => box.open(flip(sealed, 0), ctx), { code: 'ERR_SEALED_MALFORMED', message: /unknown version/ }, 'the version byte');
  const bytes = Buffer.from(sealed, 'base64');
  t.throws(() => box.open(bytes.subarray(0, n - 1).toString('base64'), ctx), { code: 'ERR_SEALED_UNOPENABLE' }, 'truncated ciphertext');
  t.throws(() => box.open(Buffer.concat([bytes, Buffer.from([0])]).toString('base64'), ctx), { code: 'ERR_SEALED_UNOPENABLE' }, 'a byte appended');
  t.throws(() => box.open(bytes.subarray(0, 29).toString('base64'), ctx), { code: 'ERR_SEALED_MALFORMED', message: /too short/ }, 'no ciphertext');
  t.throws(() => box.open('', ctx), { code: 'ERR_SEALED_MALFORMED' }, 'empty');
  t.throws(() => box.open('not base64 at all!', ctx), { code: 'ERR_SEALED_MALFORMED', message: /not base64/ });
});

t.test('an empty server secret is refused up front', async (t) => {
  t.throws(() => secretBox({ secret: Buffer.alloc(0), purpose: 'connection-credentials' }), /server secret is empty/);
});
