// The relay's start checks that need more than the schema (config.ts): the gateway URL's ws:// rule, the CA file, and
// the configured cards' hello within the tunnel's frame bound. The command runs them before anything listens (the admin
// UI) or connects (the tunnel, a LOCAL_AGENT_URL card read), so a refused config exits 2 having bound no port and
// opened nothing; `startRelay` takes their result, or runs them itself when called alone.
import { MAX_FRAME_BYTES, type RelayAgentCard } from '../src/protocol/tunnel.js';
import { readCaFile } from './ca-file.js';
import { checkGatewayUrl, type RelayConfig, RelayConfigError } from './config.js';
import { helloBytes } from './session.js';

/** What the checks read and made: the relay starts from these rather than reading the CA file a second time. */
export interface CheckedStart {
  /** the gateway's private CA (PEM), when ca_file names one */
  ca: string | undefined;
  /** the cards of the agents the config lists, as the hello announces them */
  cards: RelayAgentCard[];
}

/**
 * The hello carries every card in one frame: over the bound it could never be sent, and the relay would wait for a
 * welcome that cannot come, reconnecting for ever with a misleading reason. Refused at start instead, naming the field.
 */
export function checkHello(o: { workspace: string; cards: RelayAgentCard[] }): void {
  const bytes = helloBytes(o);
  if (bytes > MAX_FRAME_BYTES)
    throw new RelayConfigError(
      'agents',
      `the agents' cards make a hello of ${bytes} bytes, over the tunnel's frame bound of ${MAX_FRAME_BYTES} (the hello carries them in one frame): fewer agents, or fewer or shorter skills`,
    );
}

/** Runs every check; throws the first RelayConfigError (exit 2, naming the field). */
export function checkRelayStart(o: { config: RelayConfig; insecure: boolean }): CheckedStart {
  const c = o.config;
  checkGatewayUrl(c.gateway_url, o.insecure);
  const ca = c.ca_file === undefined ? undefined : readCaFile(c.ca_file);
  // the relay streams its events up whatever the local agent offers (SSE, else each poll that changed something)
  const cards = c.agents.map((a) => ({ name: a.name, description: a.description, skills: a.skills, streaming: true }));
  checkHello({ workspace: c.workspace_id, cards });
  return { ca, cards };
}
