// Bench ceiling: a bare uWS JSON-RPC endpoint. Owns nothing but POST /api/a2a: reads the body,
// JSON.parse-s it, and answers a canned Task result (echoing the request id). No auth, no store.
import { listenRpc, rpcApp } from './uws-rpc.js';

const CANNED_TASK = {
  kind: 'task',
  id: '00000000-0000-4000-8000-000000000000',
  contextId: '00000000-0000-4000-8000-000000000001',
  status: { state: 'completed', timestamp: '2025-01-01T00:00:00.000Z' },
  artifacts: [{ artifactId: 'a1', parts: [{ kind: 'text', text: 'hello' }] }],
};
const PARSE_ERROR = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}';

function reply(body: Buffer): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return PARSE_ERROR;
  }
  const id = typeof parsed === 'object' && parsed !== null && 'id' in parsed ? parsed.id : null;
  return JSON.stringify({ jsonrpc: '2.0', id, result: CANNED_TASK });
}

listenRpc(rpcApp(reply), { name: 'bare-uws' });
