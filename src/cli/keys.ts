// `a2a-gateway keys ...`: key administration on the configured store (the same one a running server uses).
import { openSecret } from '../open-store.js';
import { openCliStore } from './store.js';
import { plainDecimal } from '../protocol/decimal.js';
import { MAX_RATE_LIMIT, RateLimit } from '../protocol/records.js';
import { systemClock } from '../runtime/clock.js';
import { tellInstances } from './tell-instances.js';
import { KeyAdminError, createKey, listKeys, parseDuration, revokeKey, rotateKey } from '../runtime/key-admin.js';
import { COMMON_OPTIONS, configFrom, parseFlags } from './common-flags.js';
import { out, outJson } from './output.js';

const list = (s: string | undefined) =>
  s
    ? s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
    : [];

/** A rate-limit flag: plain decimal digits only (Number() would take 0x10, 1e3 and ' 5'), bounded as the admin API is. */
function rateLimitFlag(name: string, s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const r = RateLimit.safeParse(plainDecimal(s) ?? Number.NaN);
  if (!r.success) throw new KeyAdminError(`${name}: '${s}' is not a whole number from 1 to ${MAX_RATE_LIMIT}`);
  return r.data;
}

/** The flags that only `keys create` reads. */
const CREATE_ONLY = ['trust', 'scopes', 'agents', 'expires-in', 'expires-at', 'per-minute', 'per-hour', 'name'] as const;

export async function keysCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub.startsWith('-')) throw new KeyAdminError('keys: a subcommand is needed: create, list, revoke or rotate');
  const { values, positionals } = parseFlags({
    args: rest,
    allowPositionals: true,
    strict: true,
    options: {
      ...COMMON_OPTIONS,
      workspace: { type: 'string' },
      trust: { type: 'string' },
      scopes: { type: 'string' },
      agents: { type: 'string' },
      'expires-in': { type: 'string' },
      'expires-at': { type: 'string' },
      'per-minute': { type: 'string' },
      'per-hour': { type: 'string' },
      name: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  // refused before the store opens: a flag or argument the subcommand would ignore means the user wants something else
  const createOnly = CREATE_ONLY.find((f) => values[f] !== undefined);
  if (sub !== 'create' && createOnly) throw new KeyAdminError(`keys ${sub}: --${createOnly} is a flag of create only`, createOnly);
  const wanted = sub === 'revoke' || sub === 'rotate' ? 1 : 0;
  if (positionals.length > wanted)
    throw new KeyAdminError(`keys ${sub}: unexpected '${positionals[wanted]}' (${wanted === 1 ? 'one key id at a time' : 'give values with their flags'})`);
  const config = await configFrom(values);
  const store = await openCliStore(config);
  const deps = { keys: store.keys, relays: store.relays, secret: await openSecret(config), clock: systemClock };
  try {
    switch (sub) {
      case 'create': {
        if (values['expires-in'] && values['expires-at']) throw new KeyAdminError('give --expires-in or --expires-at, not both');
        let expiresAt: number | null = null;
        if (values['expires-in']) expiresAt = systemClock.now() + parseDuration(values['expires-in']);
        if (values['expires-at']) {
          expiresAt = Date.parse(values['expires-at']);
          if (Number.isNaN(expiresAt)) throw new KeyAdminError(`expires-at: '${values['expires-at']}' is not an ISO date`);
        }
        const perMinute = rateLimitFlag('per-minute', values['per-minute']);
        const perHour = rateLimitFlag('per-hour', values['per-hour']);
        const limits = perMinute || perHour ? { perMinute: perMinute ?? config.limits.perMinute, perHour: perHour ?? config.limits.perHour } : undefined;
        if (!values.workspace) throw new KeyAdminError('workspace: --workspace is required');
        if (!values.trust) throw new KeyAdminError('trust: --trust is required (read_only, execute, autonomous or admin)');
        const made = await createKey(deps, {
          workspace: values.workspace,
          trust: values.trust,
          scopes: list(values.scopes),
          agents: list(values.agents),
          name: values.name,
          expiresAt,
          limits,
        });
        if (values.json) {
          const v = made.view;
          outJson({ id: v.id, key: made.key, workspace: v.workspace, trust: v.trust, scopes: v.scopes, expires_at: v.expires_at });
        } else {
          out(`key ${made.record.id} created for workspace ${made.record.workspaceId} (${made.record.trust})`);
          out(`  ${made.key}`);
          out('This key is shown once; store it now.');
        }
        return 0;
      }
      case 'list': {
        const keys = await listKeys(deps, values.workspace);
        if (values.json) outJson(keys);
        else if (keys.length === 0) out(values.workspace ? `no keys in workspace ${values.workspace}` : 'no keys');
        else
          for (const k of keys)
            out(`${k.id}  ${k.workspace}  ${k.trust}  ${k.revoked ? 'revoked' : 'active'}  expires ${k.expires_at ?? 'never'}${k.name ? `  ${k.name}` : ''}`);
        return 0;
      }
      case 'revoke': {
        const id = positionals[0];
        if (!id) throw new KeyAdminError('revoke: give the key id');
        const v = await revokeKey(deps, id, { workspace: values.workspace });
        await tellInstances(config, { t: 'lapsed', keyId: v.id });
        if (values.json) outJson(v);
        else out(`key ${v.id} revoked`);
        return 0;
      }
      case 'rotate': {
        const id = positionals[0];
        if (!id) throw new KeyAdminError('rotate: give the key id');
        const made = await rotateKey(deps, id, { workspace: values.workspace });
        if (values.json) {
          const v = made.view;
          outJson({ id: v.id, key: made.key, workspace: v.workspace, trust: v.trust, scopes: v.scopes, expires_at: v.expires_at, rotated_from: id });
        } else {
          out(`key ${made.record.id} replaces ${id}; the old key stays valid until you revoke it: a2a-gateway keys revoke ${id}`);
          out(`  ${made.key}`);
        }
        return 0;
      }
      default:
        throw new KeyAdminError(`keys: unknown subcommand '${sub ?? ''}' (create, list, revoke, rotate)`);
    }
  } finally {
    await store.close();
  }
}
