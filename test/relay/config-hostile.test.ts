// Hostile relay config through the `a2a-relay` command: a file whose error would be quoted back (its api_key in the
// quote), settings a typo would drop silently, a key given twice in JSON, local URLs of other schemes or carrying
// credentials, a health_check_interval that would hammer the local agents. Each exits 2 naming the field, with the
// key never in what is printed. And an endpoint at gateway_url that echoes the relay's Authorization in its answer:
// the key is masked in the log and the exit message.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { runRelayCli } from '../../relay/cli.js';
import { makeCerts } from '../support/certs.js';

const KEY = 'svc_a2a_hostileConfigKey0123456789';
/** a key without the svc_a2a_ prefix: only the relay's own key list can mask it */
const PLAIN_KEY = 'plain-secret-relay-key-42';
// one connection attempt: a config wrongly taken ends at once (exit 1) instead of retrying for ever
const BASE = `workspace_id: ws1\napi_key: ${KEY}\ngateway_url: ws://127.0.0.1:1\nadmin_port: 0\nretry_attempts: 1\n`;
const AGENT = 'agents:\n  - name: echo\n    local_url: http://127.0.0.1:9\n';

async function run(t: Test, text: string, name: string, env: Record<string, string> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'relay-cfg-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, name);
  await writeFile(file, text);
  const lines: string[] = [];
  const logged: string[] = [];
  // a stop after 20 s is only a net: a config wrongly taken with LOCAL_AGENT_URL waits on its card for ever (exit 0)
  const net = new Promise<void>((r) => setTimeout(r, 20_000).unref());
  const code = await runRelayCli(['--config', file], {
    env,
    stopWhen: net,
    err: (l) => lines.push(l),
    log: (msg, fields) => logged.push(JSON.stringify({ msg, ...fields })),
  });
  return { code, out: lines.join('\n'), logged: logged.join('\n') };
}

t.test('a file that does not parse is refused saying where, never quoting it', async (t) => {
  const cases: Array<[string, string, string, RegExp]> = [
    [
      'a YAML error on the key line',
      'relay.yaml',
      `workspace_id: ws1\napi_key: ${KEY}: x\n`,
      /relay\.yaml is not valid YAML or JSON: .* at line 2, column \d+$/,
    ],
    ['an unclosed YAML quote', 'relay.yaml', `workspace_id: ws1\napi_key: "${KEY}\ngateway_url: ws://127.0.0.1:1\n`, /at line \d+, column \d+$/],
    ['a YAML key given twice', 'relay.yaml', `api_key: ${KEY}\napi_key: ${KEY}\n`, /Map keys must be unique at line 2, column 1$/],
    ['a JSON token after the key', 'relay.json', `{"workspace_id": "ws1", "api_key": ${KEY}}`, /relay\.json is not valid YAML or JSON: Unexpected token 's'$/],
  ];
  for (const [what, name, text, message] of cases) {
    const r = await run(t, text, name);
    t.equal(r.code, 2, `${what}: exit 2`);
    t.match(r.out, message, `${what}: says what and where: ${r.out}`);
    t.notOk(r.out.includes('hostileConfigKey'), `${what}: no part of the key is printed`);
  }
});

t.test('a setting the schema does not know, or a JSON key given twice, is refused naming it', async (t) => {
  const typo = await run(t, `${BASE}retry_atempts: 3\n${AGENT}`, 'relay.yaml');
  t.equal(typo.code, 2);
  t.match(typo.out, /bad config: .*Unrecognized key: "retry_atempts"/);
  const agentTypo = await run(t, `${BASE}${AGENT}    descripton: misspelt\n`, 'relay.yaml');
  t.match(agentTypo.out, /bad config: agents\.0: Unrecognized key: "descripton"/);
  const twice = await run(t, JSON.stringify({ workspace_id: 'ws1', api_key: KEY }).replace('}', ', "workspace_id": "ws2"}'), 'relay.json');
  t.equal(twice.code, 2);
  t.match(twice.out, /bad config: workspace_id: given twice; give it once/);
});

t.test('a local URL is http or https without credentials; gateway_url carries none either', async (t) => {
  for (const url of ['file:///etc/passwd', 'data:text/plain,hi', 'javascript:alert(1)', 'ftp://127.0.0.1/']) {
    const r = await run(t, `${BASE}${AGENT.replace('http://127.0.0.1:9', url)}`, 'relay.yaml');
    t.equal(r.code, 2, `${url}: exit 2`);
    t.match(r.out, /bad config: agents\.0\.local_url: must be an http or https URL/, url);
  }
  const creds = await run(t, `${BASE}${AGENT.replace('http://', 'http://ops:hunter2local@')}`, 'relay.yaml');
  t.match(creds.out, /agents\.0\.local_url: must not carry a user name or password/);
  t.notOk(creds.out.includes('hunter2'), 'the password is not printed');
  const env = await run(t, BASE, 'relay.yaml', { LOCAL_AGENT_URL: 'http://ops:hunter2local@127.0.0.1:9' });
  t.match(env.out, /local_agent_url \(from LOCAL_AGENT_URL\): must not carry a user name or password/);
  t.notOk(env.out.includes('hunter2') || env.logged.includes('hunter2'), 'nor printed nor logged');
  const scheme = await run(t, BASE, 'relay.yaml', { LOCAL_AGENT_URL: 'file:///etc/passwd' });
  t.match(scheme.out, /local_agent_url \(from LOCAL_AGENT_URL\): must be an http or https URL/);
  const gw = await run(t, `${BASE.replace('ws://', 'ws://relay:hunter2gw@')}${AGENT}`, 'relay.yaml');
  t.match(gw.out, /gateway_url: must not carry a user name or password/);
  t.notOk(gw.out.includes('hunter2'), 'the password is not printed');
});

t.test("an endpoint at gateway_url that echoes the relay's key: the key is masked in the log and the exit message", async (t) => {
  // answers every upgrade 400 with the Authorization it got in its status line
  const server: Server = createServer((_req, res) => res.end());
  server.on('upgrade', (req, socket) => socket.end(`HTTP/1.1 400 you sent ${req.headers.authorization}\r\nContent-Length: 0\r\n\r\n`));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const port = (server.address() as AddressInfo).port;
  for (const key of [KEY, PLAIN_KEY]) {
    const text = `${BASE.replace(KEY, key).replace('ws://127.0.0.1:1', `ws://127.0.0.1:${port}`).replace('retry_attempts: 1', 'retry_attempts: 2')}log_level: debug\n${AGENT}`;
    const r = await run(t, text, 'relay.yaml');
    t.equal(r.code, 1, 'gives up after its two attempts (the first is logged, the second ends it)');
    t.match(r.out, /last error: the gateway answered the upgrade with HTTP 400 you sent Bearer \[redacted key\]/, r.out);
    t.notOk(r.out.includes(key), 'the exit message holds no key');
    t.match(r.logged, /relay tunnel down, retrying.*HTTP 400 you sent Bearer \[redacted key\]/, 'the failure is logged, masked');
    t.notOk(r.logged.includes(key), `no log line holds the key: ${r.logged}`);
  }
});

t.test("an agent's mTLS certificate and key must be one pair", async (t) => {
  const certs = await makeCerts();
  t.teardown(() => certs.dispose());
  const config = (key: string) =>
    JSON.stringify({
      workspace_id: 'ws1',
      api_key: KEY,
      gateway_url: 'ws://127.0.0.1:1',
      admin_port: 0,
      retry_attempts: 1,
      agents: [{ name: 'echo', local_url: 'https://127.0.0.1:9', credentials: { kind: 'mtls', cert: certs.client.cert, key } }],
    });
  const r = await run(t, config(certs.server.key), 'relay.json');
  t.equal(r.code, 2, r.out);
  t.match(r.out, /bad config: agents\.0\.credentials\.key: is not the private key of the certificate \(they do not match\)/);
  t.notOk(r.out.includes('PRIVATE KEY'), 'no key is quoted');
  const ok = await run(t, config(certs.client.key), 'relay.json');
  t.equal(ok.code, 1, `the pair is taken (the relay runs and gives up on the gateway): ${ok.out}`);
});

t.test('a ca_file that cannot be read or holds no certificate is a config error naming ca_file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-ca-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const garbage = join(dir, 'garbage.pem');
  await writeFile(garbage, 'not a certificate\n');
  const cases: Array<[string, RegExp | string]> = [
    [join(dir, 'missing.pem'), /bad config: ca_file: .*missing\.pem does not exist$/m],
    // relative: read from the working directory (not the config file's), and the message says where it looked
    [
      './missing-ca.pem',
      `bad config: ca_file: ./missing-ca.pem does not exist (a relative path is read from the working directory: ${join(process.cwd(), 'missing-ca.pem')})`,
    ],
    [dir, /bad config: ca_file: .* is a directory, not a PEM file/],
    [garbage, /bad config: ca_file: .*garbage\.pem holds no PEM certificate/],
  ];
  for (const [path, message] of cases) {
    const r = await run(t, `${BASE.replace('ws://', 'wss://')}ca_file: ${path}\n${AGENT}`, 'relay.yaml');
    t.equal(r.code, 2, `${path}: exit 2`);
    t.match(r.out, message, r.out);
  }
});

t.test('a required setting given nowhere says where it can be given', async (t) => {
  const r = await run(t, `workspace_id: ws1\n${AGENT}`, 'relay.yaml');
  t.equal(r.code, 2);
  t.match(r.out, /bad config: api_key: required: set it in the config file or with SVC_API_KEY/, r.out);
});

t.test('a health_check_interval under 1 second is refused naming it; 1 second starts', async (t) => {
  // 1 ms was taken: the relay then read every local agent's card a thousand times a second
  for (const seconds of ['0.001', '0.5', '0']) {
    const r = await run(t, `${BASE}health_check_interval: ${seconds}\n${AGENT}`, 'relay.yaml');
    t.equal(r.code, 2, `${seconds}: exit 2 before anything starts`);
    t.match(r.out, /bad config: health_check_interval: at least 1 second/, `${seconds}: names the setting and its minimum: ${r.out}`);
  }
  const ok = await run(t, `${BASE}health_check_interval: 1\n${AGENT}`, 'relay.yaml');
  t.equal(ok.code, 1, `1 second is taken (the relay runs and gives up on the gateway): ${ok.out}`);
});
