// The relay's config: one zod schema over a YAML or JSON file with the container's env variables laid on top.
import { readFile } from 'node:fs/promises';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { z } from 'zod';
import { CallOrigin, GivenCredentials, MAX_ALLOWED_ORIGINS } from '../src/protocol/connections.js';
import { jsonDuplicateKey, jsonSyntaxText, lineColumn } from '../src/protocol/config-text.js';
import { PLAIN_DECIMAL_RULE, plainDecimal } from '../src/protocol/decimal.js';
import { CARD_BOUNDS, SKILL_BOUNDS } from '../src/protocol/relay-card-bounds.js';
import { MAX_RELAY_AGENTS, RelayAgentCard } from '../src/protocol/tunnel.js';
import { TrustedProxyList } from '../src/runtime/net/ip-lists.js';
import { pemPairProblem } from '../src/runtime/net/pem-pair.js';

// the cards' bounds (src/protocol/relay-card-bounds.ts): a configured skill over them is refused naming the field; a
// discovered card's (LOCAL_AGENT_URL) is cut, as the gateway cuts an announced one

// every object is strict: a misspelt setting (`retry_atempts`) would otherwise be dropped without a word
const Skill = z
  .object({
    id: z.string().min(1).max(SKILL_BOUNDS.id),
    name: z.string().min(1).max(SKILL_BOUNDS.name),
    description: z.string().max(SKILL_BOUNDS.description).default(''),
  })
  .strict();

/** Whether a URL names a user or password: shown in the admin UI and logs, so refused (credentials have their field). */
const hasUserInfo = (u: string): boolean => {
  // zod runs this check even on a value its URL check refused
  const url = URL.canParse(u) ? new URL(u) : undefined;
  return url !== undefined && (url.username !== '' || url.password !== '');
};
const NO_USER_INFO = 'must not carry a user name or password (the admin UI and the logs show this URL)';

/** A local agent's URL: http or https (a file:, data: or javascript: URL would only fail each call), no credentials. */
const LocalUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
  .refine((u) => !hasUserInfo(u), `${NO_USER_INFO}; an agent listed in the file takes its credentials field`);

/** One local agent: its name is its agent id on the gateway (in the relay's workspace). */
export const LocalAgentConfig = z
  .object({
    name: RelayAgentCard.shape.name,
    description: z.string().max(CARD_BOUNDS.description).default(''),
    /** the local agent's base URL (its card is under `/.well-known/`) */
    local_url: LocalUrl,
    skills: z.array(Skill).max(CARD_BOUNDS.skills).default([]),
    /** how the relay proves itself to the local agent (as a connection's credentials); none by default */
    credentials: GivenCredentials.default({ kind: 'none' }),
    /** other origins its card may name for calls carrying those credentials (a connection's allowedOrigins) */
    allowed_origins: z.array(CallOrigin).max(MAX_ALLOWED_ORIGINS).default([]),
  })
  .strict()
  // a certificate and key that are not one pair would fail every call at its TLS handshake: refused at start
  .superRefine((a, ctx) => {
    const bad = a.credentials.kind === 'mtls' ? pemPairProblem(a.credentials) : undefined;
    if (bad) ctx.addIssue({ code: 'custom', path: ['credentials', bad.which], message: bad.problem });
  });
export type LocalAgentConfig = z.infer<typeof LocalAgentConfig>;

/** The shortest health_check_interval, in seconds (docs/decisions.md). */
export const MIN_HEALTH_CHECK_INTERVAL = 1;

export const RelayConfig = z
  .object({
    workspace_id: z.string().min(1),
    api_key: z.string().min(1),
    /** the gateway's base URL: wss:// (or ws:// to loopback, or with --insecure) */
    gateway_url: z
      .url()
      .refine((u) => /^wss?:\/\//i.test(u), 'must be a ws:// or wss:// URL')
      .refine((u) => !hasUserInfo(u), `${NO_USER_INFO}; the relay proves itself with api_key`),
    /** the agents served; empty when `local_agent_url` names one whose card is read from it */
    agents: z.array(LocalAgentConfig).max(MAX_RELAY_AGENTS).default([]),
    /** LOCAL_AGENT_URL: one agent, "discovered automatically" from its card */
    local_agent_url: LocalUrl.optional(),
    /**
     * seconds between health checks of each local agent (one card read each); at least MIN_HEALTH_CHECK_INTERVAL, as a
     * Kubernetes probe's period: a smaller one (1 ms was taken) only made the relay hammer its own agents
     */
    health_check_interval: z
      .number()
      .min(
        MIN_HEALTH_CHECK_INTERVAL,
        `at least ${MIN_HEALTH_CHECK_INTERVAL} second: each check reads every local agent's card, and a shorter interval only loads them`,
      )
      .default(30),
    /** consecutive failed connection attempts before the relay gives up; 0: forever */
    retry_attempts: z.number().int().nonnegative().default(0),
    log_level: z.enum(['info', 'debug']).default('info'),
    /** seconds a local agent has for its first answer, and the longest silence while it streams */
    local_timeout_seconds: z.number().positive().default(30),
    /** a PEM file of the CA that signed the gateway's certificate (a private CA) */
    ca_file: z.string().min(1).optional(),
    /** the admin UI's address: loopback unless told otherwise (then a password is required) */
    admin_bind: z.string().min(1).default('127.0.0.1'),
    /** the admin UI's port; 0 picks a free one (tests) */
    admin_port: z.number().int().min(0).max(65535).default(9090),
    /** the admin UI's password: required for a bind that is not loopback, optional otherwise */
    admin_password: z.string().min(8, 'at least 8 characters').optional(),
    /**
     * the proxies (addresses or CIDR ranges) in front of the admin UI whose `X-Forwarded-Proto: https` is believed: the
     * session cookie is then marked Secure. As the gateway's trustedProxies; none by default
     */
    admin_trusted_proxies: TrustedProxyList.default([]),
  })
  .strict()
  .refine((c) => c.agents.length > 0 || c.local_agent_url !== undefined, {
    message: 'name at least one agent (or set LOCAL_AGENT_URL)',
    path: ['agents'],
  })
  .refine((c) => isLoopback(c.admin_bind) || c.admin_password !== undefined, {
    message: 'a bind that is not loopback needs admin_password (SVC_ADMIN_PASSWORD): the admin UI shows task contents',
    path: ['admin_password'],
  })
  // LOCAL_AGENT_URL's agent is announced beside the listed ones, and a hello carries at most MAX_RELAY_AGENTS cards
  .refine((c) => c.agents.length + (c.local_agent_url !== undefined ? 1 : 0) <= MAX_RELAY_AGENTS, {
    message: `at most ${MAX_RELAY_AGENTS} agents in all, local_agent_url's (LOCAL_AGENT_URL) included`,
    path: ['agents'],
  })
  .refine((c) => new Set(c.agents.map((a) => a.name)).size === c.agents.length, {
    message: 'two agents have the same name',
    path: ['agents'],
  });
export type RelayConfig = z.infer<typeof RelayConfig>;

/** A config that does not parse or validate: `field` names what is wrong. */
export class RelayConfigError extends Error {
  readonly code = 'ERR_RELAY_CONFIG';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(field ? `${field}: ${message}` : message);
    this.name = 'RelayConfigError';
  }
}

/** A whole number from env: plain decimal digits only (Number() would take '0x10', '1e3', ' 12 '), else refused naming it. */
const envInt =
  (name: string, field: keyof RelayConfig) =>
  (v: string): number => {
    const n = plainDecimal(v);
    if (n === undefined) throw new RelayConfigError(`${field} (from ${name})`, `${PLAIN_DECIMAL_RULE}, not ${JSON.stringify(v.slice(0, 40))}`);
    return n;
  };

/** The container's variables and the field each overrides. */
const ENV: Array<[string, keyof RelayConfig, (v: string) => unknown]> = [
  ['SVC_API_KEY', 'api_key', (v) => v],
  ['SVC_WORKSPACE_ID', 'workspace_id', (v) => v],
  ['SVC_GATEWAY_URL', 'gateway_url', (v) => v],
  ['LOCAL_AGENT_URL', 'local_agent_url', (v) => v],
  ['LOG_LEVEL', 'log_level', (v) => v.toLowerCase()],
  ['SVC_ADMIN_BIND', 'admin_bind', (v) => v],
  ['SVC_ADMIN_PORT', 'admin_port', envInt('SVC_ADMIN_PORT', 'admin_port')],
  ['SVC_ADMIN_PASSWORD', 'admin_password', (v) => v],
  ['SVC_ADMIN_TRUSTED_PROXIES', 'admin_trusted_proxies', (v) => v],
];

/**
 * Parses a file's text: JSON when it looks like JSON, else YAML (a superset). An error says what and where but never
 * quotes the file (it holds api_key): YAML's pretty errors and V8's JSON errors both would. A key given twice is
 * refused in JSON as YAML refuses it.
 */
function parseText(raw: string, source: string): unknown {
  // a byte order mark (some editors write one) is no part of the text
  const text = raw.replace(/^\uFEFF/, '');
  const bad = (what: string) => new RelayConfigError('', `${source} is not valid YAML or JSON: ${what}`);
  if (text.trimStart().startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      throw bad(jsonSyntaxText(e, text));
    }
    const twice = jsonDuplicateKey(text);
    if (twice !== undefined) throw new RelayConfigError(twice, 'given twice; give it once');
    return parsed;
  }
  try {
    // logLevel 'error': YAML's warnings (a key of a collection made a string) go to process warnings, quoting the key
    return parseYaml(text, { prettyErrors: false, logLevel: 'error' });
  } catch (e) {
    if (e instanceof YAMLParseError) throw bad(`${e.message} at ${lineColumn(text, e.pos[0])}`);
    throw bad(e instanceof Error ? e.message : String(e));
  }
}

/** The config from a file's text (or none) and the environment; env overrides the file. */
export function parseRelayConfig(o: { text?: string; source?: string; env?: Record<string, string | undefined> }): RelayConfig {
  const fromFile = o.text === undefined ? {} : parseText(o.text, o.source ?? 'the config file');
  if (fromFile !== null && (typeof fromFile !== 'object' || Array.isArray(fromFile))) {
    throw new RelayConfigError('', `${o.source ?? 'the config file'} must hold an object of settings`);
  }
  const merged: Record<string, unknown> = { ...(fromFile as Record<string, unknown> | null) };
  for (const [name, field, conv] of ENV) {
    const v = o.env?.[name];
    if (v !== undefined && v !== '') merged[field] = conv(v);
  }
  // LOCAL_AGENT_URL stands for the one agent: the file's agents give way to it
  if (o.env?.LOCAL_AGENT_URL) merged.agents = [];
  const r = RelayConfig.safeParse(merged);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const field = issue.path.join('.') || '(config)';
    const envName = ENV.find(([n, f]) => f === issue.path[0] && o.env?.[n])?.[0];
    // a required setting given nowhere: say where it can be given rather than zod's "received undefined"
    const top = issue.path.length === 1 ? String(issue.path[0]) : undefined;
    if (top !== undefined && merged[top] === undefined && issue.code === 'invalid_type') {
      const variable = ENV.find(([, f]) => f === top)?.[0];
      throw new RelayConfigError(field, `required: set it in the config file${variable ? ` or with ${variable}` : ''}`);
    }
    throw new RelayConfigError(envName ? `${field} (from ${envName})` : field, issue.message);
  }
  return r.data;
}

/** Reads the file (when named) and the environment. */
export async function loadRelayConfig(o: { file?: string; env: Record<string, string | undefined> }): Promise<RelayConfig> {
  let text: string | undefined;
  if (o.file !== undefined) {
    try {
      text = await readFile(o.file, 'utf8');
    } catch (e) {
      throw new RelayConfigError('', `cannot read the config file ${o.file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    }
  }
  return parseRelayConfig({ text, source: o.file, env: o.env });
}

/** A loopback host name or address (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\./.test(h);
}

/** ws:// travels in clear: only to a loopback gateway unless the operator says --insecure. */
export function checkGatewayUrl(url: string, insecure: boolean): void {
  const u = new URL(url);
  if (u.protocol === 'wss:' || insecure) return;
  if (!isLoopback(u.hostname)) throw new RelayConfigError('gateway_url', 'ws:// (no TLS) is allowed only to a loopback gateway; use wss:// or pass --insecure');
}
