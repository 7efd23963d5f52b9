// Per-workspace webhook signing secrets, kept in the store's meta area: created on first use, rotated from the CLI.
// They are sealed at rest under the server secret (secret-box.ts, as connection credentials are): whoever reads the
// store learns no secret to forge a delivery's signature with. One stored before sealing (a plain `whsec_` string) is
// still read, and sealed in place the next time a delivery asks for it.
//
// A secret is shown once, when it is rotated (`a2a-gateway webhooks secret rotate --workspace W`). A
// workspace that receives its first delivery before anyone rotated gets a secret made for it then,
// which nobody has seen: the operator rotates to get one to show to the receiver. Secrets are never
// logged. The server reads the secret on every delivery, so a rotation applies from the next attempt.
import { z } from 'zod';
import { WorkspaceId } from '../../protocol/records.js';
import { SecretBoxError, secretBox, type SecretBox } from '../secret-box.js';
import type { MetaStore } from '../store/types.js';
import { newSigningSecret, SECRET_PATTERN } from './signing.js';

const metaKey = (workspace: string): string => `webhook-secret:${workspace}`;

const Secret = z.string().regex(SECRET_PATTERN);

export class WebhookSecretError extends Error {
  readonly code = 'ERR_WEBHOOK_SECRET';
  constructor(
    message: string,
    /** the input at fault (`workspace`), as the other admin errors name it: the CLI's --json gives it as `field` */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'WebhookSecretError';
  }
}

/**
 * The workspace a secret is rotated for, by the one workspace id schema (protocol/records.ts): the bounds a key or
 * connection names hold here too. Needs no store: the CLI checks it before it opens one.
 */
export function webhookWorkspace(workspace: string): string {
  const ws = WorkspaceId.safeParse(workspace);
  if (!ws.success) throw new WebhookSecretError(`workspace: ${ws.error.issues[0]?.message ?? 'invalid'}`, 'workspace');
  return ws.data;
}

export class WebhookSecrets {
  private readonly box: SecretBox;

  constructor(private readonly o: { meta: MetaStore; secret: Buffer }) {
    this.box = secretBox({ secret: o.secret, purpose: 'webhook-signing-secret' });
  }

  /** The workspace's current secret, if it has one. */
  async current(workspace: string): Promise<string | undefined> {
    return (await this.read(workspace))?.secret;
  }

  /**
   * The secret to sign with, made now if the workspace has none. Both writes here are version-checked: the one made
   * is stored only while none is (of two instances racing here one stores, and both sign with it), and a secret
   * stored in the clear is sealed only while it is still the one stored. An operator's rotation landing meanwhile is
   * never overwritten: whatever is stored after the write is what signs.
   */
  async ensure(workspace: string): Promise<string> {
    const have = await this.read(workspace);
    if (have?.sealed) return have.secret;
    const made = have === undefined ? newSigningSecret() : have.secret;
    await this.o.meta.putIfVersion(metaKey(workspace), this.seal(workspace, made), have?.version ?? null);
    const stored = await this.current(workspace);
    if (stored === undefined) throw new WebhookSecretError(`the webhook secret of workspace '${workspace}' could not be stored`);
    return stored;
  }

  /** Replaces the workspace's secret and returns the new one (the only time it is shown). */
  async rotate(workspace: string): Promise<string> {
    const ws = webhookWorkspace(workspace);
    const secret = newSigningSecret();
    await this.write(ws, secret);
    return secret;
  }

  private seal(workspace: string, secret: string): string {
    return this.box.seal(secret, { context: workspace });
  }

  private async write(workspace: string, secret: string): Promise<void> {
    await this.o.meta.put(metaKey(workspace), this.seal(workspace, secret));
  }

  private async read(workspace: string): Promise<{ secret: string; sealed: boolean; version: string } | undefined> {
    const got = await this.o.meta.getVersioned(metaKey(workspace));
    if (got === undefined) return undefined;
    const { rec: v, version } = got;
    const damaged = () => new WebhookSecretError(`the stored webhook secret of workspace '${workspace}' is damaged; rotate it`);
    if (typeof v !== 'string') throw damaged();
    // stored before secrets were sealed
    if (v.startsWith('whsec_')) {
      const plain = Secret.safeParse(v);
      if (!plain.success) throw damaged();
      return { secret: plain.data, sealed: false, version };
    }
    let opened: unknown;
    try {
      opened = this.box.open(v, { context: workspace });
    } catch (e) {
      if (!(e instanceof SecretBoxError)) throw e;
      if (e.code === 'ERR_SEALED_MALFORMED') throw damaged();
      throw new WebhookSecretError(
        `the stored webhook secret of workspace '${workspace}' does not open with this server secret (another server secret, or a changed value); rotate it`,
      );
    }
    const r = Secret.safeParse(opened);
    if (!r.success) throw damaged();
    return { secret: r.data, sealed: true, version };
  }
}
