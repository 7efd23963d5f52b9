// The relay's config: a YAML or JSON file, the container's env variables over it, defaults, a bad field named, and the
// ws:// rule (loopback only unless --insecure).
import t from 'tap';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkGatewayUrl, loadRelayConfig, parseRelayConfig, RelayConfigError } from '../../relay/config.js';

const YAML = `
workspace_id: ws1
api_key: file-key
gateway_url: wss://gw.example.com
agents:
  - name: echo
    description: Echoes
    local_url: http://10.0.0.5:8080/api/a2a
    skills:
      - { id: echo, name: Echo, description: echoes text }
health_check_interval: 10
retry_attempts: 3
log_level: debug
`;

t.test('a YAML file gives every field; the rest takes its default', async (t) => {
  const c = parseRelayConfig({ text: YAML });
  t.equal(c.workspace_id, 'ws1');
  t.equal(c.api_key, 'file-key');
  t.equal(c.health_check_interval, 10);
  t.equal(c.retry_attempts, 3);
  t.equal(c.log_level, 'debug');
  t.equal(c.local_timeout_seconds, 30, 'default local timeout');
  t.same(c.agents[0], {
    name: 'echo',
    description: 'Echoes',
    local_url: 'http://10.0.0.5:8080/api/a2a',
    skills: [{ id: 'echo', name: 'Echo', description: 'echoes text' }],
    credentials: { kind: 'none' },
    allowed_origins: [],
  });
  const withKey = parseRelayConfig({ text: YAML.replace('    skills:', '    credentials: { kind: bearer, token: local-secret }\n    skills:') });
  t.same(withKey.agents[0]?.credentials, { kind: 'bearer', token: 'local-secret' }, 'a local agent that wants a key gets one');

  const min = parseRelayConfig({
    text: JSON.stringify({ workspace_id: 'w', api_key: 'k', gateway_url: 'wss://g', agents: [{ name: 'a', local_url: 'http://x' }] }),
  });
  t.equal(min.health_check_interval, 30, 'default health interval');
  t.equal(min.retry_attempts, 0, 'default: retry forever');
  t.equal(min.log_level, 'info');
  t.same(min.agents[0]?.skills, []);
});

t.test('a JSON file read from disk; env overrides the file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-cfg-'));
  const file = join(dir, 'relay.json');
  await writeFile(
    file,
    JSON.stringify({ workspace_id: 'w-file', api_key: 'k-file', gateway_url: 'wss://file', agents: [{ name: 'a', local_url: 'http://x' }] }),
  );
  const c = await loadRelayConfig({
    file,
    env: { SVC_API_KEY: 'k-env', SVC_WORKSPACE_ID: 'w-env', SVC_GATEWAY_URL: 'wss://env', LOG_LEVEL: 'DEBUG' },
  });
  t.equal(c.api_key, 'k-env');
  t.equal(c.workspace_id, 'w-env');
  t.equal(c.gateway_url, 'wss://env');
  t.equal(c.log_level, 'debug');
  t.equal(c.agents.length, 1);

  const one = await loadRelayConfig({ file, env: { LOCAL_AGENT_URL: 'http://agent:9000' } });
  t.equal(one.local_agent_url, 'http://agent:9000');
  t.same(one.agents, [], 'LOCAL_AGENT_URL stands for the one agent');

  const envOnly = await loadRelayConfig({ env: { SVC_API_KEY: 'k', SVC_WORKSPACE_ID: 'w', SVC_GATEWAY_URL: 'ws://127.0.0.1:1', LOCAL_AGENT_URL: 'http://a' } });
  t.equal(envOnly.workspace_id, 'w', 'no file at all: the env variables are enough');

  await t.rejects(loadRelayConfig({ file: join(dir, 'missing.yaml'), env: {} }), /cannot read the config file .*ENOENT/);
});

t.test('a bad config names the field and its source', async (t) => {
  const bad = (text: string, env: Record<string, string> = {}) => {
    try {
      parseRelayConfig({ text, env });
    } catch (e) {
      if (e instanceof RelayConfigError) return e;
      throw e;
    }
    throw new Error('accepted');
  };
  t.equal(bad(YAML.replace('retry_attempts: 3', 'retry_attempts: -1')).field, 'retry_attempts');
  t.equal(bad(YAML.replace('log_level: debug', 'log_level: loud')).field, 'log_level');
  t.equal(bad(YAML.replace('name: echo', 'name: "no spaces"')).field, 'agents.0.name');
  t.equal(bad(YAML.replace('local_url: http://10.0.0.5:8080/api/a2a', 'local_url: nope')).field, 'agents.0.local_url');
  t.equal(bad(YAML.replace('gateway_url: wss://gw.example.com', 'gateway_url: https://gw.example.com')).field, 'gateway_url');
  t.equal(bad(YAML.replace('api_key: file-key\n', '')).field, 'api_key');
  t.equal(bad(YAML, { LOG_LEVEL: 'chatty' }).field, 'log_level (from LOG_LEVEL)');
  t.equal(bad(YAML.replace('    skills:', '    credentials: { kind: magic }\n    skills:')).field, 'agents.0.credentials.kind');
  t.equal(bad(YAML.replace('    skills:', '    allowed_origins: [http://10.0.0.6:8080/api]\n    skills:')).field, 'agents.0.allowed_origins.0');
  // a token sent as a header on every turn must be one
  t.equal(bad(YAML.replace('    skills:', '    credentials: { kind: bearer, token: "tok\\nen" }\n    skills:')).field, 'agents.0.credentials.token');
  t.same(
    parseRelayConfig({ text: YAML.replace('    skills:', '    allowed_origins: [http://10.0.0.6:8080]\n    skills:') }).agents[0]?.allowed_origins,
    ['http://10.0.0.6:8080'],
    'another origin its card may name',
  );
  // a skill goes up the tunnel in the hello: its fields are bounded (a hello over the frame bound is never sent)
  t.equal(bad(YAML.replace('description: echoes text', `description: ${'x'.repeat(2001)}`)).field, 'agents.0.skills.0.description');
  t.equal(bad(YAML.replace('id: echo,', `id: ${'i'.repeat(257)},`)).field, 'agents.0.skills.0.id');
  t.match(bad('workspace_id: [unclosed').message, /not valid YAML or JSON/);
  const twice = {
    workspace_id: 'w',
    api_key: 'k',
    gateway_url: 'wss://g',
    agents: [
      { name: 'a', local_url: 'http://x' },
      { name: 'a', local_url: 'http://y' },
    ],
  };
  t.equal(bad(JSON.stringify(twice)).message, 'agents: two agents have the same name');
  t.match(bad('workspace_id: w\napi_key: k\ngateway_url: wss://g\n').message, /^agents: name at least one agent/);
  // a hello carries at most 100 cards: 100 listed agents and the file's local_agent_url one would be refused by the gateway
  const hundred = { ...twice, agents: Array.from({ length: 100 }, (_, i) => ({ name: `a${i}`, local_url: 'http://x' })) };
  t.equal(parseRelayConfig({ text: JSON.stringify(hundred) }).agents.length, 100, '100 agents are taken');
  t.equal(
    bad(JSON.stringify({ ...hundred, local_agent_url: 'http://z' })).message,
    "agents: at most 100 agents in all, local_agent_url's (LOCAL_AGENT_URL) included",
  );
  t.notMatch(bad(YAML, { LOG_LEVEL: 'chatty' }).message, /file-key/, 'the key is never in an error');
});

t.test('ws:// only to a loopback gateway unless --insecure', async (t) => {
  t.doesNotThrow(() => checkGatewayUrl('ws://127.0.0.1:8080', false));
  t.doesNotThrow(() => checkGatewayUrl('ws://localhost:8080', false));
  t.doesNotThrow(() => checkGatewayUrl('ws://[::1]:8080', false));
  t.doesNotThrow(() => checkGatewayUrl('wss://gw.example.com', false));
  t.throws(() => checkGatewayUrl('ws://gw.example.com', false), { field: 'gateway_url', message: /--insecure/ });
  t.doesNotThrow(() => checkGatewayUrl('ws://gw.example.com', true));
});
