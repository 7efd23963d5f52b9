// `a2a-gateway connections add|list|show|status|update|remove`: outbound connections on the configured store (the one a running server uses).
import { readFile } from 'node:fs/promises';
import type { parseArgs } from 'node:util';
import type { CredentialKind } from '../protocol/connections.js';
import { firstIssue } from '../protocol/input-issue.js';
import { WorkspaceFilter } from '../protocol/records.js';
import { openSecret } from '../open-store.js';
import { openCliStore } from './store.js';
import { systemClock } from '../runtime/clock.js';
import {
  type ConnectionAdminDeps,
  type ConnectionStatusView,
  type ConnectionView,
  ConnectionAdminError,
  addConnection,
  connectionStatus,
  listConnections,
  checkAddInput,
  checkUpdateInput,
  parseConnectionRef,
  removeConnection,
  showConnection,
  updateConnection,
} from '../runtime/connection-admin.js';
import { parseAllowlist } from '../runtime/net/guard.js';
import { COMMON_OPTIONS, configFrom, parseFlags } from './common-flags.js';
import { out, outJson } from './output.js';

const OPTIONS = {
  ...COMMON_OPTIONS,
  workspace: { type: 'string' },
  name: { type: 'string' },
  url: { type: 'string' },
  auth: { type: 'string' },
  dialect: { type: 'string' },
  'store-results': { type: 'boolean' },
  'no-store-results': { type: 'boolean' },
  'allowed-data-types': { type: 'string' },
  'retention-hours': { type: 'string' },
  trust: { type: 'string' },
  agents: { type: 'string' },
  'allow-origins': { type: 'string' },
  'api-key-header': { type: 'string' },
  'api-key': { type: 'string' },
  'api-key-file': { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  'token-url': { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  'client-secret-file': { type: 'string' },
  'oauth-scope': { type: 'string' },
  cert: { type: 'string' },
  key: { type: 'string' },
  ca: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];
type Flag = keyof typeof OPTIONS;

/** Each auth kind's flags, and how each becomes a credential field (`file`: the flag names a file holding it). */
const CREDENTIAL_FLAGS: Record<Exclude<CredentialKind, 'none'>, ReadonlyArray<{ flag: Flag; field: string; file?: 'secret' | 'pem' }>> = {
  apikey: [
    { flag: 'api-key-header', field: 'header' },
    { flag: 'api-key', field: 'value' },
    { flag: 'api-key-file', field: 'value', file: 'secret' },
  ],
  bearer: [
    { flag: 'token', field: 'token' },
    { flag: 'token-file', field: 'token', file: 'secret' },
  ],
  oauth: [
    { flag: 'token-url', field: 'tokenUrl' },
    { flag: 'client-id', field: 'clientId' },
    { flag: 'client-secret', field: 'clientSecret' },
    { flag: 'client-secret-file', field: 'clientSecret', file: 'secret' },
    { flag: 'oauth-scope', field: 'scope' },
  ],
  mtls: [
    { flag: 'cert', field: 'cert', file: 'pem' },
    { flag: 'key', field: 'key', file: 'pem' },
    { flag: 'ca', field: 'ca', file: 'pem' },
  ],
};
const KINDS = ['none', ...Object.keys(CREDENTIAL_FLAGS)] as CredentialKind[];
const ALL_CREDENTIAL_FLAGS = Object.entries(CREDENTIAL_FLAGS).flatMap(([kind, flags]) => flags.map((f) => ({ ...f, kind: kind as CredentialKind })));

/** The flags that set each field an error may name (the admin names fields as the views do). */
const FLAGS_OF: Record<string, string> = {
  workspace: '--workspace',
  name: '--name',
  url: '--url',
  dialect: '--dialect',
  store_results: '--store-results',
  allowed_data_types: '--allowed-data-types',
  result_retention_hours: '--retention-hours',
  trust: '--trust',
  agents: '--agents',
  allowed_origins: '--allow-origins',
  'credentials.kind': '--auth',
  'credentials.header': '--api-key-header',
  'credentials.value': '--api-key or --api-key-file',
  'credentials.token': '--token or --token-file',
  'credentials.token_url': '--token-url',
  'credentials.client_id': '--client-id',
  'credentials.client_secret': '--client-secret or --client-secret-file',
  'credentials.scope': '--oauth-scope',
  'credentials.cert': '--cert',
  'credentials.key': '--key',
  'credentials.ca': '--ca',
};

const inputError = (message: string, field?: string) => new ConnectionAdminError('ERR_CONNECTION_INPUT', message, field);

/** An admin error with the flag that sets its field added, so the user knows what to change. */
function withFlag(e: unknown): unknown {
  if (!(e instanceof ConnectionAdminError) || e.field === undefined) return e;
  if (e.code !== 'ERR_CONNECTION_INPUT' && e.code !== 'ERR_CONNECTION_URL_REFUSED') return e;
  const flag = FLAGS_OF[e.field.replace(/\[\d+\]$/, '')];
  return flag && !e.message.includes(flag) ? new ConnectionAdminError(e.code, `${e.message} (${flag})`, e.field) : e;
}

/** "an apikey", "an oauth", "an mtls", "a bearer" (as they are read out) */
const an = (kind: string): string => `${kind === 'bearer' || kind === 'none' ? 'a' : 'an'} ${kind}`;

const list = (s: string): string[] =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** A secret or PEM file's text; a secret file's trailing newline is not part of the secret. */
async function readFlagFile(flag: string, path: string, kind: 'secret' | 'pem'): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw inputError(`--${flag}: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, flag);
  }
  if (kind === 'secret') text = text.replace(/[\r\n]+$/, '');
  if (text.trim() === '') throw inputError(`--${flag}: ${path} is empty`, flag);
  return text;
}

/**
 * The credentials the flags give: undefined when no auth flag is given (update keeps the stored ones). A flag of
 * another kind than `--auth` (or, without --auth, than the others given) is refused, naming it.
 */
async function credentialsFrom(v: Values, mode: 'add' | 'update'): Promise<Record<string, unknown> | undefined> {
  const given = ALL_CREDENTIAL_FLAGS.filter((f) => v[f.flag] !== undefined);
  // update without --auth: the flags change fields of the connection's current kind (the admin checks which that is)
  const auth = v.auth ?? (mode === 'add' ? 'none' : undefined);
  if (auth === undefined && given.length === 0) return undefined;
  if (auth !== undefined && !KINDS.includes(auth as CredentialKind)) throw inputError(`auth: '${auth}' is not one of ${KINDS.join(', ')} (--auth)`, 'auth');
  const kind = auth ?? given[0]!.kind;
  for (const f of given) {
    if (f.kind === kind) continue;
    const why = auth === undefined ? `--${given[0]!.flag} is ${an(kind)} flag` : `--auth is ${auth}`;
    throw inputError(`--${f.flag} is ${an(f.kind)} credential flag, but ${why}`, f.flag);
  }
  const out: Record<string, unknown> = auth === undefined ? {} : { kind: auth };
  for (const f of given) {
    const other = given.find((g) => g !== f && g.field === f.field);
    if (other) throw inputError(`give --${f.flag} or --${other.flag}, not both`, f.flag);
    const raw = v[f.flag] as string;
    out[f.field] = f.file ? await readFlagFile(f.flag, raw, f.file) : raw;
  }
  if (mode === 'add') {
    const missing = (CREDENTIAL_FLAGS[auth as keyof typeof CREDENTIAL_FLAGS] ?? []).find(
      (f) => f.flag !== 'api-key-header' && f.flag !== 'oauth-scope' && f.flag !== 'ca' && out[f.field] === undefined,
    );
    if (missing) {
      const flags = ALL_CREDENTIAL_FLAGS.filter((f) => f.kind === auth && f.field === missing.field).map((f) => `--${f.flag}`);
      throw inputError(`${flags.join(' or ')} is required with --auth ${auth}`, missing.flag);
    }
  }
  return out;
}

/** The settings the flags give (only those given: an update keeps the others). */
function settingsFrom(v: Values): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (v.url !== undefined) out.url = v.url;
  if (v.dialect !== undefined) out.dialect = v.dialect;
  if (v.trust !== undefined) out.trust = v.trust;
  if (v['store-results'] && v['no-store-results']) throw inputError('give --store-results or --no-store-results, not both', 'store_results');
  if (v['store-results']) out.storeResults = true;
  if (v['no-store-results']) out.storeResults = false;
  if (v['allowed-data-types'] !== undefined) out.allowedDataTypes = list(v['allowed-data-types']);
  if (v['retention-hours'] !== undefined) {
    const h = Number(v['retention-hours']);
    if (v['retention-hours'].trim() === '' || !Number.isFinite(h) || h <= 0)
      throw inputError(`result_retention_hours: '${v['retention-hours']}' is not a positive number of hours (--retention-hours)`, 'result_retention_hours');
    out.resultRetentionHours = h;
  }
  // an empty --agents means every agent of the workspace (as for keys); on update, `--agents ''` sets that
  if (v.agents !== undefined) out.agents = list(v.agents);
  // other origins the card may send calls to; `--allow-origins ''` leaves the URL's own alone
  if (v['allow-origins'] !== undefined) out.allowedOrigins = list(v['allow-origins']);
  return out;
}

/** The connection a show/status/update/remove acts on: `--name N` or the first positional. */
function refFrom(v: Values, positionals: string[], sub: string): { workspace: string; name: string } {
  const name = v.name ?? positionals[0];
  if (v.name !== undefined && positionals[0] !== undefined && positionals[0] !== v.name)
    throw inputError(`${sub}: the name is given twice (${positionals[0]} and --name ${v.name})`, 'name');
  if (name === undefined) throw inputError(`name: give the connection's name (${sub} NAME or --name NAME)`, 'name');
  if (v.workspace === undefined) throw inputError('workspace: --workspace is required', 'workspace');
  try {
    return parseConnectionRef({ workspace: v.workspace, name });
  } catch (e) {
    throw withFlag(e);
  }
}

/** The workspace a listing is narrowed to, if any (see WorkspaceFilter). */
function workspaceFilter(v: Values): string | undefined {
  if (v.workspace === undefined) return undefined;
  const r = WorkspaceFilter.safeParse(v.workspace);
  if (!r.success) throw inputError(`workspace: ${firstIssue(r.error).message} (--workspace)`, 'workspace');
  return r.data;
}

const yesNo = (b: boolean) => (b ? 'yes' : 'no');
const row = (label: string, value: string) => `  ${label.padEnd(24)}${value}`;

function describe(c: ConnectionView): string[] {
  return [
    `connection ${c.name} (${c.id}) in workspace ${c.workspace}`,
    row('url', c.url),
    row('auth', c.auth),
    row('dialect', c.dialect),
    row('trust', c.trust),
    row('agents', c.agents.length === 0 ? 'every agent of the workspace' : c.agents.join(', ')),
    row('allowed origins', c.allowed_origins.length === 0 ? "the url's own only" : c.allowed_origins.join(', ')),
    row('allowed data types', c.allowed_data_types.join(', ')),
    row('store results', yesNo(c.store_results)),
    row('result retention hours', String(c.result_retention_hours)),
    row('created', c.created_at),
    row('updated', c.updated_at),
  ];
}

function describeStatus(s: ConnectionStatusView['status']): string[] {
  if (s === null) return [row('state', 'not loaded by a server yet')];
  return [
    row('state', s.state),
    row('failures', String(s.failures)),
    ...(s.last_error === null ? [] : [row('last error', s.last_error)]),
    ...(s.next_retry_at === null ? [] : [row('next retry', s.next_retry_at)]),
    ...(s.remote_name === null ? [] : [row('remote', `${s.remote_name}${s.dialect ? ` (dialect ${s.dialect})` : ''}`)]),
    row('status as of', s.updated_at),
  ];
}

export async function connectionsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const SUBS = 'add, list, show, status, update, remove';
  if (sub === undefined || sub.startsWith('-')) throw inputError(`connections: a subcommand is needed: ${SUBS}`);
  if (!SUBS.split(', ').includes(sub)) throw inputError(`connections: unknown subcommand '${sub}' (${SUBS})`);
  const { values: v, positionals } = parseFlags({ args: rest, allowPositionals: true, strict: true, options: OPTIONS });
  const credentialFlags = ALL_CREDENTIAL_FLAGS.filter((f) => v[f.flag] !== undefined).map((f) => `--${f.flag}`);
  if (sub !== 'add' && sub !== 'update') {
    const setting = [
      'url',
      'auth',
      'dialect',
      'trust',
      'agents',
      'allow-origins',
      'allowed-data-types',
      'retention-hours',
      'store-results',
      'no-store-results',
    ].find((f) => v[f as Flag] !== undefined);
    const extra = setting ? `--${setting}` : credentialFlags[0];
    if (extra) throw inputError(`connections ${sub}: ${extra} is a flag of add and update only`);
  }

  // everything the flags say is read and checked before the store is opened (the URLs through the SSRF guard too):
  // a refused command changes nothing and makes nothing, not even the data dir
  const config = await configFrom(v);
  const allowlist = parseAllowlist(config.push.allowlist, 'push.allowlist');
  const guard = { allowlist };
  let run: (deps: ConnectionAdminDeps) => Promise<void>;
  switch (sub) {
    case 'add': {
      if (positionals.length > 0) throw inputError(`connections add: unexpected '${positionals[0]}' (give the name with --name)`);
      const input = { workspace: v.workspace, name: v.name, ...settingsFrom(v), credentials: await credentialsFrom(v, 'add') };
      try {
        await checkAddInput(guard, input);
      } catch (e) {
        throw withFlag(e);
      }
      run = async (deps) => {
        const c = await addConnection(deps, input);
        if (v.json) outJson(c);
        else out(`connection ${c.name} added to workspace ${c.workspace}: ${c.url} (auth ${c.auth}, trust ${c.trust})`);
      };
      break;
    }
    case 'list': {
      if (positionals.length > 0) throw inputError(`connections list: unexpected '${positionals[0]}' (list takes --workspace W)`);
      const workspace = workspaceFilter(v);
      run = async (deps) => {
        const all = await listConnections(deps, { workspace });
        if (v.json) outJson(all);
        else if (all.length === 0) out(workspace ? `no connections in workspace ${workspace}` : 'no connections');
        else for (const c of all) out(`${c.workspace}  ${c.name}  ${c.url}  auth ${c.auth}  trust ${c.trust}  dialect ${c.dialect}`);
      };
      break;
    }
    case 'show': {
      const ref = refFrom(v, positionals, sub);
      run = async (deps) => {
        const c = await showConnection(deps, ref);
        if (v.json) outJson(c);
        else out(...describe(c));
      };
      break;
    }
    case 'status': {
      const ref = refFrom(v, positionals, sub);
      run = async (deps) => {
        const c = await connectionStatus(deps, ref);
        if (v.json) outJson(c);
        else out(...[...describe(c), ...describeStatus(c.status)]);
      };
      break;
    }
    case 'update': {
      const ref = refFrom(v, positionals, sub);
      const input = { ...ref, settings: settingsFrom(v), credentials: await credentialsFrom(v, 'update') };
      try {
        await checkUpdateInput(guard, input);
      } catch (e) {
        throw withFlag(e);
      }
      run = async (deps) => {
        const c = await updateConnection(deps, input);
        if (v.json) outJson(c);
        else out(...[`connection ${c.name} of workspace ${c.workspace} updated`, ...describe(c).slice(1)]);
      };
      break;
    }
    default: {
      const ref = refFrom(v, positionals, sub);
      run = async (deps) => {
        const c = await removeConnection(deps, ref);
        if (v.json) outJson(c);
        else out(`connection ${c.name} removed from workspace ${c.workspace}${'damaged' in c ? ' (its record was damaged)' : ''}`);
      };
    }
  }

  const store = await openCliStore(config);
  try {
    await run({ connections: store.connections, secret: await openSecret(config), clock: systemClock, allowlist });
    return 0;
  } catch (e) {
    throw withFlag(e);
  } finally {
    await store.close();
  }
}
