// Stored dashboard records that every gateway instance on one store shares: sign-in sessions and recent webhook deliveries.
import { z } from 'zod';

/** A dashboard sign-in: an opaque id (the cookie) -> workspace, the admin key that signed in, a CSRF token, an expiry. */
export const DashboardSession = z.object({
  id: z.string().min(1),
  workspace: z.string().min(1),
  /** the admin key that signed in: the session ends when it is revoked or expires */
  keyId: z.string().min(1),
  csrf: z.string().min(1),
  expiresAt: z.number(),
});
export type DashboardSession = z.infer<typeof DashboardSession>;

/** What became of a webhook delivery attempt (the push worker's report). */
export const DeliveryResult = z.enum(['delivered', 'retry', 'gave-up', 'disabled', 'released']);

/** One webhook delivery attempt as the dashboard lists it. */
export const DeliveryRecord = z.object({
  /** the push job's id */
  id: z.string(),
  /** the task's id within its workspace (not the store's task key) */
  taskId: z.string(),
  configId: z.string(),
  /** this attempt's number, from 1 */
  attempts: z.number().int(),
  result: DeliveryResult,
  /** the receiver's HTTP status, when it answered */
  status: z.number().int().nullable(),
  error: z.string().nullable(),
  /** when the attempt ended (ms since the epoch) */
  at: z.number(),
});
export type DeliveryRecord = z.infer<typeof DeliveryRecord>;

/** A stored last use of a key (ms since the epoch). */
export const KeyLastUsed = z.number().int().nonnegative();
