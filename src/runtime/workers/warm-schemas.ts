// The worker's event schema, parsed once before any agent code loads. Zod builds a schema's lookup tables (a
// discriminated union's map of tags, an object's list of keys) on its first parse, walking them with `for...in`: an
// agent that polluted Object.prototype before that first parse (a deep merge of JSON holding `__proto__`) broke the
// worker's own check of its events, so its turn failed as agent_protocol with "Cannot read properties of undefined".
import { AgentEvent } from '../../protocol/agent-events.js';

const parts = [
  { kind: 'text', text: 't', mediaType: 'text/plain', filename: 'a.txt', metadata: { k: 1 } },
  { kind: 'file', file: { name: 'a.bin', mimeType: 'application/octet-stream', bytes: 'AA==' }, metadata: { k: 1 } },
  { kind: 'file', file: { uri: 'https://example.com/a' } },
  { kind: 'data', data: { k: 1 }, mediaType: 'application/json', filename: 'a.json', metadata: { k: 1 } },
];
const message = { parts, metadata: { k: 1 }, extensions: ['https://example.com/ext'] };

/** One event of every shape the schema holds: each object schema, each union, parsed once. */
export const WARM_EVENTS: readonly unknown[] = [
  { type: 'status', state: 'working' },
  { type: 'status', state: 'completed', message },
  {
    type: 'artifact',
    artifact: { artifactId: 'a', index: 0, name: 'n', description: 'd', parts, append: false, lastChunk: true, metadata: { k: 1 }, extensions: [] },
  },
  { type: 'message', message },
];

/** Builds the schema's tables while the prototypes are still the worker's own. */
export function warmEventSchema(): void {
  for (const ev of WARM_EVENTS) AgentEvent.safeParse(ev);
}
