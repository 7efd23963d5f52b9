// The official A2A JS SDK's 0.3 client streams a task through message/stream and reads every event.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { A2AClient } from '@a2a-js/sdk/client';
import { startTestGateway } from '../support/gateway.js';
import { openSse } from '../support/sse.js';

const bearerFetch =
  (key: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${key}`);
    return fetch(input, { ...init, headers });
  };

t.test('A2AClient.sendMessageStream reads every event of a streamed task, and resubscribeTask re-attaches', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key({ trust: 'admin' });
  const client = await A2AClient.fromCardUrl(`${gw.url}/.well-known/agent-card.json`, { fetchImpl: bearerFetch(key) });
  const card = await client.getAgentCard();
  t.equal(card.capabilities.streaming, true, 'the card says streaming');

  const events: Array<{ kind: string; [k: string]: unknown }> = [];
  const stream = client.sendMessageStream({
    message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'data', data: { ms: 120, steps: 3 } }], metadata: { agentId: 'slow' } },
  });
  for await (const ev of stream) events.push(ev as unknown as (typeof events)[number]);

  t.equal(events[0]!.kind, 'task', 'first the Task');
  const taskId = events[0]!.id as string;
  const chunks = events.filter((e) => e.kind === 'artifact-update');
  t.equal(chunks.length, 3, 'every artifact chunk');
  const last = events[events.length - 1]!;
  t.equal(last.kind, 'status-update');
  t.equal((last.status as { state: string }).state, 'completed');
  t.equal(last.final, true);

  // the SDK saw exactly what a raw SSE reader sees on a replay of the whole task
  const replay = await openSse({ url: gw.url, key, method: 'tasks/resubscribe', params: { id: taskId }, headers: { 'Last-Event-ID': '0' } });
  const raw = (await replay.all()).map((f) => f.data.result);
  t.strictSame(events.slice(1), raw.slice(raw.length - (events.length - 1)), 'the same events, in the same order');

  const again: unknown[] = [];
  for await (const ev of client.resubscribeTask({ id: taskId })) again.push(ev);
  t.equal((again[0] as { kind: string }).kind, 'task', 'resubscribe to a finished task gives its current state');
  t.equal((again[0] as { status: { state: string } }).status.state, 'completed');
});
