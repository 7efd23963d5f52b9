// A slow SSE reader: the server buffers a bounded amount for it, then ends its stream with an error event.
import t from 'tap';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startTestGateway, msgB } from '../support/gateway.js';
import { openSse } from '../support/sse.js';

const flood = fileURLToPath(new URL('../fixtures/agents/flood.js', import.meta.url));

t.test('a reader that stops reading is cut off past the buffer limit, with a final error event; nothing is lost for a resubscribe', async (t) => {
  const events = 1500;
  const size = 32 * 1024; // ~48 MiB in all, far past socket buffers
  const gw = await startTestGateway({
    config: {
      streaming: { maxBufferedBytes: 256 * 1024, eventRetention: 5000 },
      agents: [{ id: 'flood', name: 'Flood', kind: 'module', entry: flood, default: true, options: { events, size } }],
    },
  });
  t.teardown(() => gw.close());
  const { key } = await gw.key();

  const body = JSON.stringify({ jsonrpc: '2.0', id: 'bp', method: 'message/stream', params: msgB('go') });
  const sock = connect(new URL(gw.url).port as unknown as number, '127.0.0.1');
  await new Promise<void>((res) => sock.once('connect', () => res()));
  sock.write(
    `POST /api/a2a HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  sock.pause(); // a client that does not read

  // wait until the task has run to the end while the reader reads nothing
  let taskId: string | undefined;
  for (let i = 0; i < 600 && !taskId; i++) {
    const keys = await gw.gw.store.tasks.listByState(['completed']);
    taskId = keys[0]?.id;
    if (!taskId) await new Promise((r) => setTimeout(r, 25));
  }
  t.ok(taskId, 'the task completes although its only reader is stuck');

  // now read whatever the server kept for this client
  let received = 0;
  let text = '';
  sock.on('data', (d: Buffer) => {
    received += d.length;
    text += d.toString('latin1').slice(-4096);
    if (text.length > 65536) text = text.slice(-8192);
  });
  sock.resume();
  await new Promise<void>((res) => sock.once('close', () => res()));
  const produced = events * size;
  t.ok(received < produced / 4, `the server did not buffer the whole stream for a stuck reader (${received} of ${produced} bytes reached it)`);
  const lastData = text
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .pop()!;
  const last = JSON.parse(lastData.slice(6));
  t.equal(last.error.code, -32603, 'the stream ends with a JSON-RPC error event');
  t.equal(last.error.data.detail, 'backpressure');
  const lastEventId = String(last.error.data.lastEventId);

  // the events it missed are in the store: resubscribing from the last id it was sent gets them all, to the final one
  const again = await openSse({ url: gw.url, key, method: 'tasks/resubscribe', params: { id: taskId }, headers: { 'Last-Event-ID': lastEventId } });
  const rest = await again.all();
  t.ok(rest.length > 0);
  t.equal(rest[rest.length - 1]!.data.result.status.state, 'completed');
  t.equal(Number(rest[0]!.id), Number(lastEventId) + 1, 'the replay starts right after the cut');
});
