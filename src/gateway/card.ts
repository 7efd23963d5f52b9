// Agent Cards: the service card and per-agent cards, built from listed agents only; public, no secrets.
import type { AgentSpec } from '../protocol/agent-events.js';

export interface CardSettings {
  name: string;
  description: string;
  /** what the card advertises; flipped on by the issues that bring streaming and push */
  streaming: boolean;
  pushNotifications: boolean;
}

export const PROTOCOL_VERSION = '0.3.0';

/**
 * The interfaces a card offers, first preferred: 1.0 and 0.3 over JSON-RPC at the same URL (the method names and the
 * A2A-Version header tell them apart; rev A is reached there too). A 1.x client's resolver reads this list and picks
 * 1.0; a 0.3 client reads `url` and `preferredTransport` above it and ignores the list.
 */
export const supportedInterfaces = (url: string) => [
  { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
];

function skillsOf(agents: readonly AgentSpec[]) {
  return agents.flatMap((a) => a.skills.map((s) => ({ ...s, tags: s.tags ?? [], examples: s.examples ?? [] })));
}

const CREDENTIALS_HINT = 'Create an API key with `a2a-gateway keys create`; send it as Authorization: Bearer <key>.';

/** How the gateway authenticates (an API key as `Authorization: Bearer`), as 1.0's HTTPAuthSecurityScheme. */
const BEARER_V1 = { scheme: 'Bearer', description: CREDENTIALS_HINT };
/** 1.0's SecurityRequirement list: every call needs the bearer scheme (no scopes: a key's scopes are its own). */
const SECURITY_REQUIREMENTS_V1 = [{ schemes: { bearer: { list: [] } } }];

export function buildCard(o: { settings: CardSettings; agents: readonly AgentSpec[]; url: string; name?: string; description?: string }) {
  return {
    name: o.name ?? o.settings.name,
    description: o.description ?? o.settings.description,
    supportedInterfaces: supportedInterfaces(o.url),
    url: o.url,
    version: PROTOCOL_VERSION,
    protocolVersion: PROTOCOL_VERSION,
    preferredTransport: 'JSONRPC',
    capabilities: {
      streaming: o.settings.streaming,
      pushNotifications: o.settings.pushNotifications,
      stateTransitionHistory: true,
      // 1.0's name for supportsAuthenticatedExtendedCard
      extendedAgentCard: true,
    },
    authentication: { schemes: ['bearer'], credentials: CREDENTIALS_HINT },
    // one scheme in both forms: 0.3 reads `type`/`scheme` and `security`; 1.0 reads the oneof field
    // (`httpAuthSecurityScheme`) and `securityRequirements`, each ignoring the other's fields
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: CREDENTIALS_HINT, httpAuthSecurityScheme: BEARER_V1 } },
    security: [{ bearer: [] }],
    securityRequirements: SECURITY_REQUIREMENTS_V1,
    defaultInputModes: ['text', 'text/plain', 'application/json'],
    defaultOutputModes: ['text', 'text/plain', 'application/json'],
    skills: skillsOf(o.agents),
    supportsAuthenticatedExtendedCard: true,
  };
}

/**
 * The same card as A2A 1.0's AgentCard, which a 1.0 method answers (GetExtendedAgentCard): 1.0's fields only, the
 * bearer scheme in 1.0's form only (`httpAuthSecurityScheme`, `securityRequirements`). The well-known cards carry both
 * forms side by side, as a 0.3 client needs its own.
 */
export function buildCardV1(o: Parameters<typeof buildCard>[0]) {
  const c = buildCard(o);
  return {
    name: c.name,
    description: c.description,
    supportedInterfaces: c.supportedInterfaces,
    version: c.version,
    capabilities: { streaming: c.capabilities.streaming, pushNotifications: c.capabilities.pushNotifications, extendedAgentCard: true },
    securitySchemes: { bearer: { httpAuthSecurityScheme: BEARER_V1 } },
    securityRequirements: c.securityRequirements,
    defaultInputModes: c.defaultInputModes,
    defaultOutputModes: c.defaultOutputModes,
    skills: c.skills,
  };
}

/**
 * The public card shows only listed agents that serve every workspace: an agent of one workspace
 * is that workspace's business and appears only on the authenticated extended card.
 */
export const isPublic = (a: AgentSpec): boolean => a.listed && a.workspace === '*';

export function serviceCard(o: { settings: CardSettings; agents: readonly AgentSpec[]; baseUrl: string }) {
  return buildCard({ settings: o.settings, agents: o.agents.filter(isPublic), url: `${o.baseUrl}/api/a2a` });
}

/** The endpoint that addresses one agent directly (its cards' interface URL). */
export const agentUrl = (baseUrl: string, agentId: string) => `${baseUrl}/api/a2a/agents/${encodeURIComponent(agentId)}`;

/** What one agent's cards are built from: its URL, name, description and skills (public and extended alike). */
export const agentCardInput = (o: { settings: CardSettings; agent: AgentSpec; baseUrl: string }) => ({
  settings: o.settings,
  agents: [o.agent],
  url: agentUrl(o.baseUrl, o.agent.id),
  name: o.agent.name,
  description: o.agent.description,
});

export function agentCard(o: { settings: CardSettings; agent: AgentSpec; baseUrl: string }) {
  return buildCard(agentCardInput(o));
}
