// The relay admin UI's session cookie is marked Secure when the UI is reached over https through a TLS-terminating
// proxy the operator trusts (admin_trusted_proxies, `X-Forwarded-Proto: https`), by the gateway dashboard's rule; the
// header from any other peer is not believed. Before, the cookie was never Secure. Real relay admin server on port 0.
import t, { type Test } from 'tap';
import { parseRelayConfig } from '../../relay/config.js';
import { ADMIN_PASSWORD, RELAY_SETTINGS } from '../support/relay-admin-settings.js';
import { startAdmin } from '../../relay/admin/server.js';

const base = {
  ...RELAY_SETTINGS,
  admin_port: 0,
  admin_password: ADMIN_PASSWORD,
};

async function admin(t: Test, extra: Record<string, unknown>, env: Record<string, string> = {}) {
  const a = await startAdmin({ config: parseRelayConfig({ text: JSON.stringify({ ...base, ...extra }), env }), log: () => {} });
  t.teardown(() => a.close());
  const login = async (headers: Record<string, string> = {}) => {
    const res = await fetch(`${a.url}/login`, {
      method: 'POST',
      body: new URLSearchParams({ password: ADMIN_PASSWORD }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      redirect: 'manual',
    });
    t.equal(res.status, 303, 'signed in');
    return res.headers.get('set-cookie') ?? '';
  };
  const logout = async (cookie: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${a.url}/logout`, { method: 'POST', headers: { cookie: cookie.split(';')[0]!, ...headers }, redirect: 'manual' });
    t.equal(res.status, 303, 'signed out');
    return res.headers.get('set-cookie') ?? '';
  };
  return { login, logout };
}

const HTTPS = { 'x-forwarded-proto': 'https' };
const SECURE = /;\s*Secure(;|$)/i;

t.test('from a trusted proxy saying https: the session cookie and its clearing are Secure', async (t) => {
  const a = await admin(t, { admin_trusted_proxies: ['127.0.0.1'] });
  const cookie = await a.login(HTTPS);
  t.match(cookie, SECURE, 'the session cookie is Secure');
  t.match(cookie, /HttpOnly/);
  t.match(cookie, /SameSite=Strict/);
  t.match(await a.logout(cookie, HTTPS), SECURE, 'the sign-out clears it with the same attributes');

  t.notMatch(await a.login(), SECURE, 'the same proxy over plain http: not Secure');
  t.notMatch(await a.login({ 'x-forwarded-proto': 'http' }), SECURE, 'X-Forwarded-Proto: http: not Secure');
});

t.test('the header from a peer that is not a trusted proxy is not believed', async (t) => {
  const none = await admin(t, {});
  t.notMatch(await none.login(HTTPS), SECURE, 'no trusted proxies (the default): not Secure');
  const other = await admin(t, { admin_trusted_proxies: ['10.0.0.0/8'] });
  t.notMatch(await other.login(HTTPS), SECURE, 'a peer outside the trusted ranges: not Secure');
});

t.test('admin_trusted_proxies from the environment, and a bad entry named', async (t) => {
  const a = await admin(t, {}, { SVC_ADMIN_TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1' });
  t.match(await a.login(HTTPS), SECURE, 'SVC_ADMIN_TRUSTED_PROXIES, comma-separated');
  t.throws(
    () => parseRelayConfig({ text: JSON.stringify(base), env: { SVC_ADMIN_TRUSTED_PROXIES: '127.0.0.1,proxy.local' } }),
    /admin_trusted_proxies\.1 \(from SVC_ADMIN_TRUSTED_PROXIES\): not an IP address or CIDR range/,
  );
  t.throws(
    () => parseRelayConfig({ text: JSON.stringify({ ...base, admin_trusted_proxies: ['300.1.1.1'] }) }),
    /admin_trusted_proxies\.0: not an IP address or CIDR range/,
  );
});
