// Who holds a push job's lease: each claim's token names the gateway instance and the run (boot) of it that claimed,
// so that a restarted instance can free the leases its own earlier run left behind when it died.
import { randomUUID } from 'node:crypto';
import type { LeaseHolder } from './types.js';

/**
 * The start every token of `instance` has. The byte length first makes it unambiguous: instance "gw-1" never matches
 * the tokens of "gw-10" (whose start is "5:gw-10:").
 */
export const instanceStart = (instance: string): string => `${Buffer.byteLength(instance)}:${instance}:`;

/** A fresh lease token; one claimed without a holder names none (a plain uuid, never freed early). */
export const leaseToken = (holder: LeaseHolder | undefined): string => (holder ? `${runStart(holder)}${randomUUID()}` : randomUUID());

/** The start of every token of this run of the instance. */
export const runStart = (holder: LeaseHolder): string => `${instanceStart(holder.instance)}${holder.boot}:`;

/** Whether `token` was handed out to an earlier (or any other) run of `holder`'s instance. */
export const heldByEarlierRun = (token: string, holder: LeaseHolder): boolean =>
  token.startsWith(instanceStart(holder.instance)) && !token.startsWith(runStart(holder));
