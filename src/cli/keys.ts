// `a2a-gateway keys ...`: key administration on the configured store (the same one a running server uses).
import type { parseArgs } from 'node:util';
import { z } from 'zod';
import type { Config } from '../config/schema.js';
import { openSecret } from '../open-store.js';
import { openCliStore } from './store.js';
import { plainDecimal } from '../protocol/decimal.js';
import { hasControl, NO_CONTROL } from '../protocol/control-chars.js';
import { firstIssue } from '../protocol/input-issue.js';
import { MAX_RATE_LIMIT, RateLimit, WorkspaceFilter } from '../protocol/records.js';
import { systemClock } from '../runtime/clock.js';
import { tellInstances } from './tell-instances.js';
import { KeyAdminError, createKey, listKeys, parseCreateKeyInput, parseDuration, revokeKey, rotateKey } from '../runtime/key-admin.js';
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
  if (!r.success) throw new KeyAdminError(`${name}: '${s}' is not a whole number from 1 to ${MAX_RATE_LIMIT}`, name);
  return r.data;
}

/** The flags that only `keys create` reads. */
const CREATE_ONLY = ['trust', 'scopes', 'agents', 'expires-in', 'expires-at', 'per-minute', 'per-hour', 'name'] as const;
const SUBS = ['create', 'list', 'revoke', 'rotate'];

const OPTIONS = {
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
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** What list, revoke and rotate act on: a key id as given (an earlier version's too) and a workspace to narrow to. */
const KeyRef = z.object({
  id: z
    .string()
    .min(1)
    .refine((id) => !hasControl(id), NO_CONTROL)
    .optional(),
  workspace: WorkspaceFilter.optional(),
});

/** What a subcommand was asked, checked whole before the store opens (and so before the data dir is made). */
type Plan =
  | { sub: 'create'; input: ReturnType<typeof parseCreateKeyInput> }
  | { sub: 'list'; workspace: string | undefined }
  | { sub: 'revoke' | 'rotate'; id: string; workspace: string | undefined };

function parseKeysArgs(sub: string, v: Values, positionals: string[], config: Config): Plan {
  if (sub === 'create') {
    if (v['expires-in'] && v['expires-at']) throw new KeyAdminError('give --expires-in or --expires-at, not both', 'expires_at');
    let expiresAt: number | null = null;
    if (v['expires-in']) expiresAt = systemClock.now() + parseDuration(v['expires-in']);
    if (v['expires-at']) {
      expiresAt = Date.parse(v['expires-at']);
      if (Number.isNaN(expiresAt)) throw new KeyAdminError(`expires-at: '${v['expires-at']}' is not an ISO date`, 'expires_at');
    }
    const perMinute = rateLimitFlag('per-minute', v['per-minute']);
    const perHour = rateLimitFlag('per-hour', v['per-hour']);
    const limits = perMinute || perHour ? { perMinute: perMinute ?? config.limits.perMinute, perHour: perHour ?? config.limits.perHour } : undefined;
    if (!v.workspace) throw new KeyAdminError('workspace: --workspace is required', 'workspace');
    if (!v.trust) throw new KeyAdminError('trust: --trust is required (read_only, execute, autonomous or admin)', 'trust');
    const input = parseCreateKeyInput(
      { workspace: v.workspace, trust: v.trust, scopes: list(v.scopes), agents: list(v.agents), name: v.name, expiresAt, limits },
      systemClock.now(),
    );
    return { sub, input };
  }
  const r = KeyRef.safeParse({ id: positionals[0], workspace: v.workspace });
  if (!r.success) {
    const i = firstIssue(r.error);
    const field = i.path.map(String).join('.') || 'input';
    throw new KeyAdminError(`${field}: ${i.message}`, field);
  }
  if (sub === 'list') return { sub, workspace: r.data.workspace };
  if (r.data.id === undefined) throw new KeyAdminError(`${sub}: give the key id`, 'id');
  return { sub: sub as 'revoke' | 'rotate', id: r.data.id, workspace: r.data.workspace };
}

export async function keysCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub.startsWith('-')) throw new KeyAdminError('keys: a subcommand is needed: create, list, revoke or rotate');
  if (!SUBS.includes(sub)) throw new KeyAdminError(`keys: unknown subcommand '${sub}' (create, list, revoke, rotate)`);
  const { values, positionals } = parseFlags({ args: rest, allowPositionals: true, strict: true, options: OPTIONS });
  // refused before the store opens: a flag or argument the subcommand would ignore means the user wants something else
  const createOnly = CREATE_ONLY.find((f) => values[f] !== undefined);
  if (sub !== 'create' && createOnly) throw new KeyAdminError(`keys ${sub}: --${createOnly} is a flag of create only`, createOnly);
  const wanted = sub === 'revoke' || sub === 'rotate' ? 1 : 0;
  if (positionals.length > wanted)
    throw new KeyAdminError(`keys ${sub}: unexpected '${positionals[wanted]}' (${wanted === 1 ? 'one key id at a time' : 'give values with their flags'})`);
  const config = await configFrom(values);
  const plan = parseKeysArgs(sub, values, positionals, config);
  const store = await openCliStore(config);
  const deps = { keys: store.keys, relays: store.relays, secret: await openSecret(config), clock: systemClock };
  try {
    switch (plan.sub) {
      case 'create': {
        const made = await createKey(deps, plan.input);
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
        const keys = await listKeys(deps, plan.workspace);
        if (values.json) outJson(keys);
        else if (keys.length === 0) out(plan.workspace ? `no keys in workspace ${plan.workspace}` : 'no keys');
        else
          for (const k of keys)
            out(`${k.id}  ${k.workspace}  ${k.trust}  ${k.revoked ? 'revoked' : 'active'}  expires ${k.expires_at ?? 'never'}${k.name ? `  ${k.name}` : ''}`);
        return 0;
      }
      case 'revoke': {
        const v = await revokeKey(deps, plan.id, { workspace: plan.workspace });
        await tellInstances(config, { t: 'lapsed', keyId: v.id });
        if (values.json) outJson(v);
        else out(`key ${v.id} revoked`);
        return 0;
      }
      case 'rotate': {
        const id = plan.id;
        const made = await rotateKey(deps, id, { workspace: plan.workspace });
        if (values.json) {
          const v = made.view;
          outJson({ id: v.id, key: made.key, workspace: v.workspace, trust: v.trust, scopes: v.scopes, expires_at: v.expires_at, rotated_from: id });
        } else {
          out(`key ${made.record.id} replaces ${id}; the old key stays valid until you revoke it: a2a-gateway keys revoke ${id}`);
          out(`  ${made.key}`);
        }
        return 0;
      }
    }
  } finally {
    await store.close();
  }
}
