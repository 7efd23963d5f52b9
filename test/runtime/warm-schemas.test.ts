// The events the worker parses before any agent code loads must stay valid events as the schema changes: one that no
// longer parses would leave part of the schema's tables to be built after an agent could have polluted the prototypes.
import t from 'tap';
import { AgentEvent } from '../../src/protocol/agent-events.js';
import { WARM_EVENTS } from '../../src/runtime/workers/warm-schemas.js';

t.test('every warm-up event is a valid agent event', async (t) => {
  for (const ev of WARM_EVENTS) {
    const r = AgentEvent.safeParse(ev);
    t.ok(r.success, `${JSON.stringify(ev).slice(0, 80)}: ${r.success ? 'ok' : JSON.stringify(r.error.issues).slice(0, 300)}`);
  }
  const kinds = new Set(WARM_EVENTS.map((e) => (e as { type: string }).type));
  t.same([...kinds].sort(), ['artifact', 'message', 'status'], 'every event type is warmed');
});
