// The SSRF guard on its own: which addresses are internal, the allowlist, the URL checks, and the connect-time lookup.
import t from 'tap';
import { lookup as dnsLookup } from 'node:dns';
import { checkAddress, checkUrl, checkUrlStatic, guardedLookup, parseAllowlist, type Resolve } from '../../src/runtime/net/guard.js';
import { parseConfig } from '../../src/config/parse.js';

const none = parseAllowlist([]);
/** A stand-in for DNS (outside the project): names map to fixed addresses. */
const fakeDns =
  (table: Record<string, string[]>): Resolve =>
  async (host) => {
    const list = table[host];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

t.test('internal addresses are refused, each with its reason', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['127.0.0.1', /loopback address 127\.0\.0\.1/],
    ['127.9.8.7', /loopback/],
    ['::1', /loopback/],
    ['10.1.2.3', /private address 10\.1\.2\.3/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['169.254.1.1', /link-local/],
    ['fe80::1', /link-local/],
    ['febf::1', /link-local/],
    ['100.64.0.1', /CGNAT/],
    ['100.127.255.254', /CGNAT/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['ff02::1', /multicast/],
    ['0.0.0.0', /unspecified/],
    ['::', /unspecified/],
    ['fc00::1', /unique-local/],
    ['fd12:3456::1', /unique-local/],
    ['169.254.169.254', /metadata address 169\.254\.169\.254/],
    ['fd00:ec2::254', /metadata/],
    ['255.255.255.255', /reserved/],
    // IPv6 forms that carry an IPv4 address are judged by that address
    ['::ffff:127.0.0.1', /loopback address ::ffff:127\.0\.0\.1 \(IPv4 127\.0\.0\.1\)/],
    ['::ffff:7f00:1', /loopback/],
    ['::ffff:10.0.0.1', /private/],
    ['::ffff:169.254.169.254', /metadata/],
    ['64:ff9b::a9fe:a9fe', /metadata/],
    ['2002:7f00:1::', /loopback/],
    ['::127.0.0.1', /loopback/],
    ['::ffff:0:7f00:1', /loopback address ::ffff:0:7f00:1 \(IPv4 127\.0\.0\.1\)/],
    ['::ffff:0:a9fe:a9fe', /metadata/],
    // not globally reachable: a site's own translator (64:ff9b:1::/48), SRv6 ids, documentation, the old 6to4 relay
    ['64:ff9b:1::a00:1', /reserved/],
    ['64:ff9b:1:ffff::1', /reserved/],
    ['5f00::1', /reserved/],
    ['3fff::1', /reserved/],
    ['192.88.99.1', /reserved/],
  ];
  for (const [addr, why] of cases) {
    const v = checkAddress(addr, none);
    t.notOk(v.ok, `${addr} refused`);
    if (!v.ok) t.match(v.message, why, `${addr}: ${v.message}`);
  }
  for (const addr of [
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '192.169.0.1',
    '::ffff:0:808:808',
    '64:ff9b:2::1',
    '192.88.100.1',
    '2001:4860::8888',
  ]) {
    t.ok(checkAddress(addr, none).ok, `${addr} is public`);
  }
});

t.test('the allowlist admits CIDRs and exact addresses, and only those', async (t) => {
  const allow = parseAllowlist(['127.0.0.1', '10.20.0.0/16', 'fd00::/8']);
  t.ok(checkAddress('127.0.0.1', allow).ok);
  t.ok(checkAddress('::ffff:127.0.0.1', allow).ok, 'the mapped form of an admitted address');
  t.notOk(checkAddress('127.0.0.2', allow).ok, 'an exact entry admits one address');
  t.ok(checkAddress('10.20.99.1', allow).ok);
  t.notOk(checkAddress('10.21.0.1', allow).ok);
  t.ok(checkAddress('fd00:ec2::254', allow).ok, 'an operator can admit even a metadata address, by naming its range');
  t.throws(() => parseAllowlist(['127.0.0.1', 'localhost'], 'push.allowlist'), { code: 'ERR_ALLOWLIST', message: /push\.allowlist\[1\]: 'localhost'/ });
  t.throws(() => parseAllowlist(['10.0.0.0/33']), { code: 'ERR_ALLOWLIST', message: /^allowlist\[0\]: / });
  t.throws(() => parseConfig({ push: { allowlist: ['nope'] } }), { message: /push\.allowlist\.0/ }, 'the config schema names the entry');
  const c = parseConfig({ push: { allowlist: ['127.0.0.1'] } });
  t.match(
    c.push,
    { allowlist: ['127.0.0.1'], timeoutMs: Number, maxAttempts: Number, backoffBaseMs: Number, backoffMaxMs: Number },
    'defaults fill the other knobs',
  );
});

t.test('URLs: http and https only, no localhost by name, literals checked without DNS', async (t) => {
  const refusedWith = (url: string, re: RegExp) => {
    const v = checkUrlStatic(url, { allowlist: none });
    t.notOk(v.ok, `${url} refused`);
    if (!v.ok) t.match(v.refusal.message, re, `${url}: ${v.refusal.message}`);
  };
  refusedWith('ftp://example.com/x', /^URL refused: scheme 'ftp' is not allowed \(http or https only\)$/);
  const named = checkUrlStatic('ftp://example.com/x', { allowlist: none, what: 'push URL' });
  t.match(named.ok ? '' : named.refusal.message, /^push URL refused: scheme 'ftp'/, 'the caller names its URL in refusals');
  refusedWith('file:///etc/passwd', /scheme 'file'/);
  refusedWith('gopher://example.com/', /scheme 'gopher'/);
  refusedWith('not a url', /not an absolute URL/);
  refusedWith('http://localhost:8080/hook', /'localhost' names a loopback address/);
  refusedWith('http://LOCALHOST./hook', /names a loopback/);
  refusedWith('https://api.localhost/hook', /names a loopback/);
  refusedWith('http://127.0.0.1:9/h', /points to a loopback address 127\.0\.0\.1/);
  refusedWith('http://2130706433/h', /loopback address 127\.0\.0\.1/); // the URL parser reads the integer form
  refusedWith('http://0x7f.1/h', /loopback/);
  refusedWith('http://[::1]:80/h', /loopback/);
  refusedWith('http://[::ffff:127.0.0.1]/h', /loopback/);
  refusedWith('http://[fd00:ec2::254]/latest/meta-data', /metadata/);
  refusedWith('http://169.254.169.254/latest/meta-data', /metadata/);
  t.ok(checkUrlStatic('https://hooks.example.com/a2a', { allowlist: none }).ok);
  t.ok(checkUrlStatic('http://93.184.216.34/a2a', { allowlist: none }).ok);
});

t.test('names are resolved at registration; every address must pass', async (t) => {
  const resolve = fakeDns({ 'rebind.test': ['127.0.0.1'], 'mixed.test': ['93.184.216.34', '10.0.0.7'], 'public.test': ['93.184.216.34'] });
  const r1 = await checkUrl('http://rebind.test/hook', { allowlist: none, resolve, what: 'push URL' });
  t.same(r1.ok ? undefined : r1.refusal, { reason: 'address', message: 'push URL refused: resolves to a loopback address 127.0.0.1', address: '127.0.0.1' });
  const r2 = await checkUrl('http://mixed.test/hook', { allowlist: none, resolve });
  t.notOk(r2.ok, 'one internal address among public ones is enough to refuse');
  t.ok((await checkUrl('http://public.test/hook', { allowlist: none, resolve })).ok);
  t.ok((await checkUrl('http://rebind.test/hook', { allowlist: parseAllowlist(['127.0.0.0/8']), resolve })).ok, 'admitted by the allowlist');
  t.ok((await checkUrl('https://unknown.test/hook', { allowlist: none, resolve })).ok, 'a name that does not resolve now is judged at connect time');
});

t.test('the connect-time lookup refuses what it resolves, in both callback forms', async (t) => {
  const resolve = fakeDns({ 'inside.test': ['127.0.0.2'], 'outside.test': ['93.184.216.34', '2606:4700::1111'] });
  const lookup = guardedLookup({ allowlist: parseAllowlist(['127.0.0.1']), resolve });
  const call = (host: string, options: { all?: boolean; family?: number }) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family?: number }>((done) =>
      lookup(host, options, (err, address, family) => done({ err, address, family })),
    );
  const refused = await call('inside.test', { all: true });
  t.equal(refused.err?.name, 'AddressRefused');
  t.equal(refused.err?.code, 'ERR_ADDRESS_REFUSED');
  t.match(refused.err?.message, /^URL refused: /);
  t.match(refused.err?.message, /inside\.test resolves to a loopback address 127\.0\.0\.2/);
  t.same((await call('outside.test', { all: true })).address, [
    { address: '93.184.216.34', family: 4 },
    { address: '2606:4700::1111', family: 6 },
  ]);
  const single = await call('outside.test', { family: 6 });
  t.same([single.address, single.family], ['2606:4700::1111', 6]);
  t.match((await call('localhost', {})).err?.message, /names a loopback/);
  t.equal((await call('nowhere.test', {})).err?.code, 'ENOTFOUND');
  // and the default resolver is node's: localhost resolves here, and is refused by name before any lookup
  t.type(dnsLookup, 'function');
});
