// `a2a-gateway webhooks secret rotate --workspace W [--json]`: a new webhook signing secret for a workspace, shown once.
import { openSecret } from '../open-store.js';
import { openCliStore } from './store.js';
import { WebhookSecretError, WebhookSecrets, webhookWorkspace } from '../runtime/push/secrets.js';
import { COMMON_OPTIONS, configFrom, parseFlags } from './common-flags.js';
import { out, outJson } from './output.js';

export async function webhooksCommand(args: string[]): Promise<number> {
  const [noun, verb, ...rest] = args;
  if (noun === undefined || noun.startsWith('-'))
    throw new WebhookSecretError("webhooks: a subcommand is needed; the only one is 'secret rotate' (a2a-gateway webhooks secret rotate --workspace W)");
  if (noun !== 'secret' || verb !== 'rotate') {
    throw new WebhookSecretError(`webhooks: unknown subcommand '${[noun, verb].filter(Boolean).join(' ')}'; the only one is 'secret rotate'`);
  }
  const { values } = parseFlags({
    args: rest,
    strict: true,
    options: { ...COMMON_OPTIONS, workspace: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  if (!values.workspace) throw new WebhookSecretError('workspace: --workspace is required', 'workspace');
  // before the store opens: a workspace id no secret can be kept for leaves nothing made
  const workspace = webhookWorkspace(values.workspace);
  const config = await configFrom(values);
  const serverSecret = await openSecret(config);
  const store = await openCliStore(config);
  try {
    const secret = await new WebhookSecrets({ meta: store.meta, secret: serverSecret }).rotate(workspace);
    if (values.json) {
      outJson({ workspace, secret });
    } else {
      out(`webhook signing secret of workspace ${workspace} (replaces the previous one from the next delivery on):`);
      out(`  ${secret}`);
      out('This secret is shown once; give it to your webhook receivers now.');
    }
    return 0;
  } finally {
    await store.close();
  }
}
