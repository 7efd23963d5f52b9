// Scopes and trust levels (the spec's scope bundles); which method needs which scope is the gateway's method table.
import { z } from 'zod';

export const Scope = z.enum(['tasks.read', 'tasks.create', 'tasks.cancel', 'tasks.stream', 'agents.read', 'agents.list', 'results.read', 'results.files']);
export type Scope = z.infer<typeof Scope>;

export const TrustLevel = z.enum(['read_only', 'execute', 'autonomous', 'admin']);
export type TrustLevel = z.infer<typeof TrustLevel>;

const READ_ONLY: Scope[] = ['agents.list', 'agents.read', 'tasks.read', 'results.read'];
const EXECUTE: Scope[] = [...READ_ONLY, 'tasks.create'];
const AUTONOMOUS: Scope[] = [...EXECUTE, 'tasks.cancel', 'results.files'];

export const TRUST_SCOPES: Record<TrustLevel, readonly Scope[]> = {
  read_only: READ_ONLY,
  execute: EXECUTE,
  autonomous: AUTONOMOUS,
  admin: Scope.options,
};

/** Explicit scopes narrow a trust level, never widen it: the result is the intersection. */
export function effectiveScopes(trust: TrustLevel, explicit?: readonly Scope[] | null): Scope[] {
  const bundle = TRUST_SCOPES[trust];
  if (!explicit || explicit.length === 0) return [...bundle];
  return bundle.filter((s) => explicit.includes(s));
}

/** Scopes requested beyond the trust level's bundle (an error at key creation). */
export function scopesBeyondTrust(trust: TrustLevel, explicit: readonly Scope[]): Scope[] {
  const bundle = TRUST_SCOPES[trust];
  return explicit.filter((s) => !bundle.includes(s));
}
