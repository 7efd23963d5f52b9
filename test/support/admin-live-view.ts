// Test support: a task's live view on the admin API (GET /api/admin/tasks/:id/events), read as the dashboard's
// EventSource reads it: opened, read to its first event (the task as it stands), then watched for its end. Shared by
// the dashboard tests that check which views end (a key revoked, a session signed out or expired) and which stay open.
import type { Test } from 'tap';

export interface LiveView {
  /** 'ended' once the server ends the stream (or a further event comes), 'open' when it is still open after `ms` of real time */
  end(ms: number): Promise<'ended' | 'event' | 'open'>;
  cancel(): Promise<void>;
}

/** Opens the view with `headers` (a session cookie or a Bearer key); asserts it answers 200 and shows the task. */
export async function openLiveView(t: Test, o: { url: string; taskId: string; headers: Record<string, string> }): Promise<LiveView> {
  const res = await fetch(`${o.url}/api/admin/tasks/${o.taskId}/events`, { headers: o.headers });
  t.equal(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const read = async (): Promise<'ended' | 'event'> => {
    const r = await reader.read();
    if (r.done) return 'ended';
    text += decoder.decode(r.value);
    return /^data: /m.test(text) ? 'event' : read();
  };
  t.equal(await read(), 'event', 'the view shows the task');
  text = '';
  t.teardown(() => reader.cancel().catch(() => undefined));
  return {
    end: (ms) => Promise.race([read(), new Promise<'open'>((r) => setTimeout(() => r('open'), ms))]),
    cancel: () => reader.cancel(),
  };
}
