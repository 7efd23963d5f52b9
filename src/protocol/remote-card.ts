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

/** 1.0 cards list every interface: its URL, protocol binding (JSONRPC, GRPC, HTTP+JSON) and protocol version. */
const SupportedInterface = z.looseObject({ url: z.string().min(1), protocolBinding: z.string(), protocolVersion: z.string().optional() });

/**
 * The spec's Agent Card table plus the 0.2/0.3 fields the client uses. Lenient: what the client does not need may be
 * missing (real cards of both revisions leave out different fields), but what is present must have its type; any other
 * field is kept as received.
 */
export const RemoteAgentCard = z.looseObject({
  name: z.string().min(1),
  description: z.string().default(''),
  /** 0.x cards' endpoint; a 1.0-only card has none and lists its interfaces instead */
  url: z.string().min(1).optional(),
  supportedInterfaces: z.array(SupportedInterface).optional(),
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
  if (r.success) {
    if (r.data.url === undefined && !(r.data.supportedInterfaces ?? []).length) return { ok: false, message: 'url: Required (or supportedInterfaces)' };
    return { ok: true, card: r.data };
  }
  const issue = r.error.issues[0]!;
  const path = issue.path.length > 0 ? issue.path.map(String).join('.') : '(the card)';
  return { ok: false, message: `${path}: ${issue.message}` };
}

const JSONRPC = 'JSONRPC';

const isV1 = (v: string | undefined) => v !== undefined && /^1(\.0)?(\.|$)/.test(v.trim());

/** The card's JSON-RPC 1.0 interface, when it lists one. */
const v1Interface = (card: Pick<RemoteAgentCard, 'supportedInterfaces'>) =>
  card.supportedInterfaces?.find((i) => i.protocolBinding.toUpperCase() === JSONRPC && isV1(i.protocolVersion));

/**
 * The card's JSON-RPC endpoint for a dialect. 1.0: the URL of its JSON-RPC 1.0 interface. The revisions: `url`, unless
 * the card prefers another transport (gRPC, HTTP+JSON), in which case `url` is that transport's and the JSON-RPC one,
 * if offered, is among `additionalInterfaces`; a card without `url` may list a JSON-RPC 0.x interface instead.
 */
export function jsonRpcUrlOf(card: RemoteAgentCard, dialect?: Dialect): string | undefined {
  if (dialect === 'V1') return v1Interface(card)?.url;
  const preferred = card.preferredTransport?.toUpperCase();
  if (card.url !== undefined && (preferred === undefined || preferred === JSONRPC)) return card.url;
  const additional = card.additionalInterfaces?.find((i) => i.transport.toUpperCase() === JSONRPC)?.url;
  if (additional !== undefined) return additional;
  return card.supportedInterfaces?.find((i) => i.protocolBinding.toUpperCase() === JSONRPC && !isV1(i.protocolVersion))?.url;
}

/**
 * The dialect a card's agent speaks: a JSON-RPC 1.0 interface in `supportedInterfaces` is 1.0 (preferred, as the SDKs
 * do); else `protocolVersion` 0.2.x or 0.3.x is rev B; no protocolVersion (0.1 cards have none) or 0.1.x is rev A; any
 * other version is one this client has no codec for (undefined).
 */
export function dialectOfCard(card: Pick<RemoteAgentCard, 'protocolVersion' | 'supportedInterfaces'>): Dialect | undefined {
  if (v1Interface(card)) return 'V1';
  const listed = card.supportedInterfaces?.find((i) => i.protocolBinding.toUpperCase() === JSONRPC)?.protocolVersion;
  const v = (card.protocolVersion ?? listed)?.trim();
  if (v === undefined || v === '' || /^0\.1(\.|$)/.test(v)) return 'A';
  if (/^0\.[23](\.|$)/.test(v)) return 'B';
  return undefined;
}
