// Scopes, trust levels (the spec's scope bundles) and the method-to-scope table.
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

/** Every method the endpoint knows, with the scope it requires (spec table plus protocol.md's added names). */
export const METHOD_SCOPES = {
  'tasks/send': 'tasks.create',
  'message/send': 'tasks.create',
  'tasks/sendSubscribe': 'tasks.stream',
  'message/sendStream': 'tasks.stream',
  'message/stream': 'tasks.stream',
  'tasks/resubscribe': 'tasks.stream',
  'tasks/get': 'tasks.read',
  'tasks/cancel': 'tasks.cancel',
  'tasks/pushNotification/set': 'tasks.create',
  'tasks/pushNotification/get': 'tasks.read',
  'tasks/pushNotificationConfig/set': 'tasks.create',
  'tasks/pushNotificationConfig/get': 'tasks.read',
  'tasks/pushNotificationConfig/list': 'tasks.read',
  'tasks/pushNotificationConfig/delete': 'tasks.create',
  'agent/getAuthenticatedExtendedCard': 'agents.read',
  // gateway extensions: listing the agents a key may reach, and one agent's details
  'agents/list': 'agents.list',
  'agents/get': 'agents.read',
} as const satisfies Record<string, Scope>;

export type MethodName = keyof typeof METHOD_SCOPES;
export const isKnownMethod = (m: string): m is MethodName => Object.hasOwn(METHOD_SCOPES, m);

/** Methods that answer with an SSE stream (all need tasks.stream). */
export const isStreamingMethod = (m: MethodName): boolean => METHOD_SCOPES[m] === 'tasks.stream';
