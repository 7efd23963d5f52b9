// How a command that failed is reported, for every command (main.ts's one catch): the message on stderr, as ever, and
// with --json also one JSON line on stdout, where the command's result would have been, so that a script reading the
// result reads the failure too: {"error": {"code", "message", "field"?}}. The code is the one the admin API answers for
// the same condition (`operatorCode`, from the error's own ERR_* code), or the outbound code of a failed `call`.
import { ConfigError } from '../config/error.js';
import { operatorCode } from '../protocol/errors.js';
import { OutboundError } from '../runtime/a2a-client/types.js';
import { ConnectionAdminError } from '../runtime/connection-admin.js';
import { KeyAdminError } from '../runtime/key-admin.js';
import { WebhookSecretError } from '../runtime/push/secrets.js';
import { RelayAdminError } from '../runtime/relay-admin.js';
import { isStoreUnavailable } from '../runtime/store/errors.js';
import { FlagError } from './common-flags.js';
import { usageOf } from './help.js';
import { err, outJson } from './output.js';

/** Refusals of what the operator gave (config, input to an admin module): exit 2. Anything else but usage: exit 1. */
const REFUSALS = [ConfigError, KeyAdminError, ConnectionAdminError, RelayAdminError, WebhookSecretError];

interface Failure {
  code: string;
  message: string;
  field?: string;
  exitCode: 1 | 2;
  /** what stderr says */
  text: string;
}

/** node's parseArgs refusing a flag it does not know, a value it cannot take, an extra argument */
const isParseArgsError = (e: Error): boolean => e instanceof TypeError && String((e as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS');

function failureOf(e: unknown, words: readonly string[]): Failure {
  if (!(e instanceof Error)) return { code: 'internal', message: String(e), exitCode: 1, text: `a2a-gateway: ${String(e)}` };
  const field: unknown = (e as { field?: unknown }).field;
  const named = { message: e.message, ...(typeof field === 'string' && { field }) };
  // a command line it cannot read: the usage of the command follows the message
  if (e instanceof FlagError || isParseArgsError(e)) return { code: 'usage', ...named, exitCode: 2, text: `a2a-gateway: ${e.message}\n${usageOf(words)}` };
  if (e instanceof OutboundError) return { code: e.code, ...named, exitCode: 1, text: `a2a-gateway: call failed (${e.code}): ${e.message}` };
  const code = operatorCode(e) ?? (isStoreUnavailable(e) ? 'store_unavailable' : 'internal');
  return { code, ...named, exitCode: REFUSALS.some((c) => e instanceof c) ? 2 : 1, text: `a2a-gateway: ${e.message}` };
}

/** Reports `e` (stderr; and stdout with --json) and gives the exit status. */
export function reportFailure(e: unknown, o: { json: boolean; words: readonly string[] }): number {
  const f = failureOf(e, o.words);
  if (o.json) outJson({ error: { code: f.code, message: f.message, ...(f.field !== undefined && { field: f.field }) } });
  err(f.text);
  return f.exitCode;
}
