// OAuth 2.0 client credentials: one token request (RFC 6749 §4.4, client authenticated with HTTP Basic), its answer
// checked with zod; secrets never appear in an error.
import { z } from 'zod';
import type { Credentials } from '../../protocol/connections.js';
import { HEADER_TEXT, HEADER_TEXT_RULE } from '../../protocol/records.js';
import { cutCodePoints } from '../../protocol/summary.js';
import { httpExchange, type HttpCall } from './http.js';
import { MAX_REMOTE_ERROR, OutboundError } from './types.js';

type OAuthCredentials = Extract<Credentials, { kind: 'oauth' }>;

export interface Token {
  accessToken: string;
  /** seconds the token lives, when the server says */
  expiresIn: number | undefined;
}

const TokenAnswer = z.object({
  // it goes out as the Authorization header of every call: one that cannot be sent is no token
  access_token: z.string().min(1).regex(HEADER_TEXT, HEADER_TEXT_RULE),
  token_type: z
    .string()
    .refine((t) => t.toLowerCase() === 'bearer', 'only Bearer tokens are supported')
    .optional(),
  expires_in: z.coerce.number().positive().optional(),
});

const TokenError = z.object({ error: z.string(), error_description: z.string().optional() });

/** RFC 6749 §2.3.1: the id and secret are form-encoded before they are joined and base64-encoded (the Basic credentials). */
export const basicAuth = (id: string, secret: string) =>
  Buffer.from(`${encodeURIComponent(id).replace(/%20/g, '+')}:${encodeURIComponent(secret).replace(/%20/g, '+')}`).toString('base64');

export type TokenRequest = Omit<HttpCall, 'url' | 'method' | 'headers' | 'body'>;

export async function fetchToken(cred: OAuthCredentials, http: TokenRequest): Promise<Token> {
  const form = new URLSearchParams({ grant_type: 'client_credentials', ...(cred.scope !== undefined && { scope: cred.scope }) });
  let answer: Awaited<ReturnType<typeof httpExchange>>;
  try {
    answer = await httpExchange({
      ...http,
      url: cred.tokenUrl,
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        authorization: `Basic ${basicAuth(cred.clientId, cred.clientSecret)}`,
      },
      body: form.toString(),
    });
  } catch (e) {
    if (e instanceof OutboundError && (e.code === 'url_refused' || e.code === 'canceled')) throw e;
    throw new OutboundError('token_failed', `the OAuth token endpoint failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  let json: unknown;
  try {
    json = JSON.parse(answer.body.toString('utf8'));
  } catch {
    json = undefined;
  }
  if (answer.status < 200 || answer.status >= 300) {
    const err = TokenError.safeParse(json);
    // the token endpoint's words are quoted as a remote's JSON-RPC error message is: cut short
    const said = err.success ? `${err.data.error}${err.data.error_description ? ` (${err.data.error_description})` : ''}` : '';
    const why = said ? `: ${cutCodePoints(said, MAX_REMOTE_ERROR)}` : '';
    throw new OutboundError('token_failed', `the OAuth token endpoint answered HTTP ${answer.status}${why}`);
  }
  const ok = TokenAnswer.safeParse(json);
  if (!ok.success) {
    const issue = ok.error.issues[0]!;
    throw new OutboundError('token_failed', `the OAuth token endpoint's answer is not a token: ${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  return { accessToken: ok.data.access_token, expiresIn: ok.data.expires_in };
}
