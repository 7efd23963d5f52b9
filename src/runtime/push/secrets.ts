// Per-workspace webhook signing secrets, kept in the store's meta area: created on first use, rotated from the CLI.
//
// A secret is shown once, when it is rotated (`a2a-gateway webhooks secret rotate --workspace W`). A
// workspace that receives its first delivery before anyone rotated gets a secret made for it then,
// which nobody has seen: the operator rotates to get one to show to the receiver. Secrets are never
// logged. The server reads the secret on every delivery, so a rotation applies from the next attempt.
import { z } from 'zod';
import type { MetaStore } from '../store/types.js';
import { newSigningSecret, SECRET_PATTERN } from './signing.js';

const metaKey = (workspace: string): string => `webhook-secret:${workspace}`;

const StoredSecret = z.string().regex(SECRET_PATTERN);

export const WorkspaceId = z
  .string()
  .min(1, 'workspace: give a workspace id')
  .refine((w) => !w.includes('/'), 'workspace: a workspace id has no "/"');

export class WebhookSecretError extends Error {
  readonly code = 'ERR_WEBHOOK_SECRET';
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSecretError';
  }
}

export class WebhookSecrets {
  constructor(private readonly o: { meta: MetaStore }) {}

  /** The workspace's current secret, if it has one. */
  async current(workspace: string): Promise<string | undefined> {
    const v = await this.o.meta.get(metaKey(workspace));
    if (v === undefined) return undefined;
    const r = StoredSecret.safeParse(v);
    if (!r.success) throw new WebhookSecretError(`the stored webhook secret of workspace '${workspace}' is damaged; rotate it`);
    return r.data;
  }

  /**
   * The secret to sign with, made now if the workspace has none. Two instances racing here both
   * write, and both read back what is stored, so they sign with the same one from then on.
   */
  async ensure(workspace: string): Promise<string> {
    const have = await this.current(workspace);
    if (have !== undefined) return have;
    await this.o.meta.put(metaKey(workspace), newSigningSecret());
    const stored = await this.current(workspace);
    if (stored === undefined) throw new WebhookSecretError(`the webhook secret of workspace '${workspace}' could not be stored`);
    return stored;
  }

  /** Replaces the workspace's secret and returns the new one (the only time it is shown). */
  async rotate(workspace: string): Promise<string> {
    const ws = WorkspaceId.safeParse(workspace);
    if (!ws.success) throw new WebhookSecretError(ws.error.issues[0]?.message ?? 'workspace: invalid');
    const secret = newSigningSecret();
    await this.o.meta.put(metaKey(ws.data), secret);
    return secret;
  }
}
