// A remote agent's Agent Card as the client reads it (either dialect, leniently), its JSON-RPC endpoint and its dialect.
import { z } from 'zod';
import type { Dialect } from './model.js';

const Strings = z.array(z.string());

const RemoteSkill = z.looseObject({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  tags: Strings.optional(),
  examples: Strings.optional(),
  inputModes: Strings.optional(),
  outputModes: Strings.optional(),
});

/** 0.3 cards name further endpoints for other transports beside `url`. */
const RemoteInterface = z.looseObject({ url: z.string(), transport: z.string() });

/**
 * The spec's Agent Card table plus the 0.2/0.3 fields the client uses. Lenient: what the client does not need may be
 * missing (real cards of both revisions leave out different fields), but what is present must have its type; any other
 * field is kept as received.
 */
export const RemoteAgentCard = z.looseObject({
  name: z.string().min(1),
  description: z.string().default(''),
  url: z.string().min(1),
  version: z.string().default(''),
  protocolVersion: z.string().optional(),
  preferredTransport: z.string().optional(),
  additionalInterfaces: z.array(RemoteInterface).optional(),
  capabilities: z
    .looseObject({
      streaming: z.boolean().optional(),
      pushNotifications: z.boolean().optional(),
      stateTransitionHistory: z.boolean().optional(),
    })
    .default({}),
  authentication: z.looseObject({ schemes: Strings, credentials: z.string().optional() }).optional(),
  defaultInputModes: Strings.optional(),
  defaultOutputModes: Strings.optional(),
  skills: z.array(RemoteSkill).default([]),
});
export type RemoteAgentCard = z.infer<typeof RemoteAgentCard>;

export type CardVerdict = { ok: true; card: RemoteAgentCard } | { ok: false; message: string };

/** Validates a card; a refusal names the first failing field. */
export function parseRemoteCard(raw: unknown): CardVerdict {
  const r = RemoteAgentCard.safeParse(raw);
  if (r.success) return { ok: true, card: r.data };
  const issue = r.error.issues[0]!;
  const path = issue.path.length > 0 ? issue.path.map(String).join('.') : '(the card)';
  return { ok: false, message: `${path}: ${issue.message}` };
}

const JSONRPC = 'JSONRPC';

/**
 * The card's JSON-RPC endpoint: `url`, unless the card prefers another transport (gRPC, HTTP+JSON), in which case
 * `url` is that transport's and the JSON-RPC one, if offered, is among `additionalInterfaces`.
 */
export function jsonRpcUrlOf(card: RemoteAgentCard): string | undefined {
  const preferred = card.preferredTransport?.toUpperCase();
  if (preferred === undefined || preferred === JSONRPC) return card.url;
  return card.additionalInterfaces?.find((i) => i.transport.toUpperCase() === JSONRPC)?.url;
}

/**
 * The dialect a card's agent speaks: `protocolVersion` 0.2.x or 0.3.x is rev B; no protocolVersion (0.1 cards have
 * none) or 0.1.x is rev A; any other version is one this client has no codec for (undefined).
 */
export function dialectOfCard(card: Pick<RemoteAgentCard, 'protocolVersion'>): Dialect | undefined {
  const v = card.protocolVersion?.trim();
  if (v === undefined || v === '' || /^0\.1(\.|$)/.test(v)) return 'A';
  if (/^0\.[23](\.|$)/.test(v)) return 'B';
  return undefined;
}
