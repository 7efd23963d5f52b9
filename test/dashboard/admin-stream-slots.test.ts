// One admin key cannot hold unbounded live views (the admin API's SSE) open (dashboard.maxStreamsPerKey): past the
// bound its next view is refused with 429 naming the limit, its session counts with its Bearer calls, other keys and
// its A2A streams are apart, and a view that ends in any way frees its slot exactly once.
import t, { type Test } from 'tap';
import { startTestGateway } from '../support/gateway.js';
import { until } from '../support/a2a-client.js';
import { openSse } from '../support/sse.js';
import { REDIS_URL, cleanupPrefix, testPrefix } from '../support/redis.js';
import { hangUps } from '../support/hang-ups.js';

const LIMIT = 2;

interface View {
  status: number;
  /** the JSON body of a refusal */
  json?: any;
  /** resolves once the server has ended the view */
  ended(): Promise<void>;
  close(): Promise<void>;
}

async function setup(t: Test, o: { redis?: boolean } = {}) {
  const prefix = testPrefix('admin-stream-slots');
  const store = o.redis ? { store: 'redis' as const, redisUrl: REDIS_URL, redisPrefix: prefix } : {};
  const tg = await startTestGateway({ config: { dashboard: { enabled: true, maxStreamsPerKey: LIMIT }, ...store } });
  const views: View[] = [];
  t.teardown(async () => {
    for (const v of views) await v.close();
    await tg.close();
    if (o.redis) await cleanupPrefix(REDIS_URL, prefix);
  });
  const admin = await tg.key({ workspace: 'acme', trust: 'admin' });
  /** a task that stays open (input-required) until it is canceled */
  const openTask = async (): Promise<string> => {
    const sent = await tg.rpc({
      method: 'message/send',
      key: admin.key,
      params: {
        message: { kind: 'message', role: 'user', messageId: `m-${Math.random()}`, parts: [{ kind: 'text', text: 'hi' }], metadata: { agentId: 'converse' } },
      },
    });
    t.equal(sent.json.result.status.state, 'input-required');
    return sent.json.result.id;
  };
  /** the task's live view, read as the dashboard's EventSource reads it; kept until the test ends unless closed */
  const view = async (taskId: string, headers: Record<string, string>): Promise<View> => {
    const res = await fetch(`${tg.url}/api/admin/tasks/${taskId}/events`, { headers });
    if (res.status !== 200) return { status: res.status, json: await res.json(), ended: async () => undefined, close: async () => undefined };
    const reader = res.body!.getReader();
    let closed = false;
    const v: View = {
      status: 200,
      async ended() {
        while (!(await reader.read()).done);
      },
      async close() {
        if (closed) return;
        closed = true;
        await reader.cancel().catch(() => undefined);
      },
    };
    views.push(v);
    return v;
  };
  return { tg, admin, openTask, view };
}

t.test('an admin key holding its limit of live views gets the next refused with 429 naming the limit', async (t) => {
  const { tg, admin, openTask, view } = await setup(t);
  const taskId = await openTask();
  const bearer = { Authorization: `Bearer ${admin.key}` };
  t.same([(await view(taskId, bearer)).status, (await view(taskId, bearer)).status], [200, 200]);

  const refused = await view(taskId, bearer);
  t.equal(refused.status, 429);
  t.match(refused.json, { error: 'rate_limited', limit: LIMIT, setting: 'dashboard.maxStreamsPerKey' });
  t.match(refused.json.message, /Too many open streams.*2.*dashboard\.maxStreamsPerKey/);

  const signIn = await fetch(`${tg.url}/api/admin/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ key: admin.key }),
  });
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
  t.equal((await view(taskId, { Cookie: cookie })).status, 429, "the key's session counts with its Bearer views");

  const other = await tg.key({ workspace: 'acme', trust: 'admin' });
  t.equal((await view(taskId, { Authorization: `Bearer ${other.key}` })).status, 200, "another admin key's views are its own");

  const a2a = await openSse({ url: tg.url, key: admin.key, method: 'tasks/resubscribe', params: { id: taskId } });
  t.teardown(() => a2a.close());
  t.equal(a2a.status, 200, "the key's A2A streams are counted apart (streaming.maxStreamsPerKey)");
});

t.test('a view the client closes, or that ends by itself, frees its slot once', async (t) => {
  const { tg, admin, openTask, view } = await setup(t);
  const bearer = { Authorization: `Bearer ${admin.key}` };
  const first = await openTask();
  const a = await view(first, bearer);
  t.equal((await view(first, bearer)).status, 200);
  t.equal((await view(first, bearer)).status, 429);

  await a.close();
  let b: View | undefined;
  await until(async () => {
    b = await view(first, bearer);
    return b.status === 200;
  }, 'a slot is free once a client goes away');
  t.equal((await view(first, bearer)).status, 429, 'one slot freed, not more');

  // canceled, the task's views end by themselves with its last summary; their clients go away after
  const canceled = await fetch(`${tg.url}/api/admin/tasks/${first}/cancel`, { method: 'POST', headers: bearer });
  t.equal(canceled.status, 200);
  await b!.ended();
  const second = await openTask();
  let c: View | undefined;
  await until(async () => {
    c = await view(second, bearer);
    return c.status === 200;
  }, 'the ended views freed their slots');
  t.equal((await view(second, bearer)).status, 200, 'both of them');
  t.equal((await view(second, bearer)).status, 429, 'each once: the bound holds again');
});

t.test('a client gone before its view opened frees the slot too', async (t) => {
  // on Redis the call awaits the network, so a hang-up lands before the view opens
  const { tg, admin, openTask, view } = await setup(t, { redis: true });
  const taskId = await openTask();
  const port = Number(new URL(tg.url).port);
  const request = `GET /api/admin/tasks/${taskId}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin.key}\r\n\r\n`;
  // each sends a whole view request and hangs up at once (before or just after the view opens)
  await hangUps({ port, request, count: LIMIT * 10 });
  let n = 0;
  await until(async () => {
    if ((await view(taskId, { Authorization: `Bearer ${admin.key}` })).status === 200) n++;
    return n === LIMIT;
  }, 'every slot the hung-up clients took is free again');
  t.equal(n, LIMIT);
  t.equal((await view(taskId, { Authorization: `Bearer ${admin.key}` })).status, 429, 'and no more than the bound');
});
