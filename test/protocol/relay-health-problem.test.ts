// What a caller reads of a relay agent's failed health check: its kind, sorted from the relay's text of it.
import t from 'tap';
import { callerHealth, healthProblem } from '../../src/protocol/tunnel.js';

t.test("a check's error text sorts into timeout, unreachable or bad_response", async (t) => {
  const cases: Array<[string, string]> = [
    ['http://127.0.0.1:4100 cannot be reached (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:4100)', 'unreachable'],
    ['http://10.0.0.5:8080 cannot be reached (ECONNRESET: socket hang up)', 'unreachable'],
    ['http://agent.internal cannot be reached (ENOTFOUND: getaddrinfo ENOTFOUND agent.internal)', 'unreachable'],
    ['http://10.0.0.5:8080 cannot be reached (ETIMEDOUT: connect ETIMEDOUT 10.0.0.5:8080)', 'timeout'],
    ['the request timed out after 5000 ms', 'timeout'],
    ['the Agent Card at http://127.0.0.1:4100/.well-known/agent-card.json is not JSON', 'bad_response'],
    ['no Agent Card: http://127.0.0.1:4100/.well-known/agent-card.json (HTTP 404)', 'bad_response'],
    ['', 'bad_response'],
  ];
  for (const [text, kind] of cases) t.equal(healthProblem(text), kind, text);
});

t.test("a caller's view keeps up and the time, and only the kind of a failure", async (t) => {
  const at = '2026-01-01T12:00:00.000Z';
  t.same(callerHealth({ up: true, checkedAt: at }), { up: true, checkedAt: at });
  t.same(callerHealth({ up: false, checkedAt: at, error: 'http://127.0.0.1:4100 cannot be reached (ECONNREFUSED)' }), {
    up: false,
    checkedAt: at,
    error: 'unreachable',
  });
});
