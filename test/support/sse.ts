// Test support: a real SSE client over fetch that parses `id:` / `data:` frames and `:` comments as they arrive.
export interface SseFrame {
  id?: string;
  /** parsed JSON of the data line */
  data?: any;
  comment?: string;
}

export interface SseClient {
  status: number;
  headers: Headers;
  /** the JSON body when the server answered with plain JSON instead of a stream */
  json?: any;
  /** resolves with the next frame, or undefined when the stream ended */
  next(): Promise<SseFrame | undefined>;
  /** reads events (skipping comments) until one has `final: true` or the stream ends */
  untilFinal(): Promise<SseFrame[]>;
  /** reads everything until the stream ends */
  all(): Promise<SseFrame[]>;
  close(): void;
}

export async function openSse(o: {
  url: string;
  key?: string;
  method: string;
  params: unknown;
  id?: string;
  headers?: Record<string, string>;
  path?: string;
  /** the fetch to use (a CA-trusting one for a gateway serving TLS) */
  fetch?: typeof fetch;
}): Promise<SseClient> {
  const ac = new AbortController();
  const res = await (o.fetch ?? fetch)(o.url + (o.path ?? '/api/a2a'), {
    method: 'POST',
    signal: ac.signal,
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', ...(o.key && { Authorization: `Bearer ${o.key}` }), ...o.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: o.id ?? 'stream-1', method: o.method, params: o.params }),
  });
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      json: text ? JSON.parse(text) : undefined,
      next: async () => undefined,
      untilFinal: async () => [],
      all: async () => [],
      close: () => undefined,
    };
  }
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  let done = false;
  const frames: SseFrame[] = [];

  const parseFrames = () => {
    let at: number;
    while ((at = buf.indexOf('\n\n')) >= 0) {
      const raw = buf.slice(0, at);
      buf = buf.slice(at + 2);
      const f: SseFrame = {};
      for (const line of raw.split('\n')) {
        if (line.startsWith(':')) f.comment = line.slice(1).trim();
        else if (line.startsWith('id: ')) f.id = line.slice(4);
        else if (line.startsWith('data: ')) f.data = JSON.parse(line.slice(6));
      }
      frames.push(f);
    }
  };

  const next = async (): Promise<SseFrame | undefined> => {
    for (;;) {
      if (frames.length > 0) return frames.shift();
      if (done) return undefined;
      let r: Awaited<ReturnType<typeof reader.read>>;
      try {
        r = await reader.read();
      } catch {
        done = true;
        continue;
      }
      if (r.done) done = true;
      else buf += decoder.decode(r.value, { stream: true });
      parseFrames();
    }
  };
  const isFinal = (f: SseFrame) =>
    f.data?.error !== undefined ||
    f.data?.result?.final === true ||
    (f.data?.result?.kind === 'task' && ['completed', 'canceled', 'failed', 'input-required'].includes(f.data.result.status?.state));

  return {
    status: res.status,
    headers: res.headers,
    next,
    async untilFinal() {
      const out: SseFrame[] = [];
      for (;;) {
        const f = await next();
        if (!f) return out;
        if (f.comment !== undefined && f.data === undefined) continue;
        out.push(f);
        if (isFinal(f)) return out;
      }
    },
    async all() {
      const out: SseFrame[] = [];
      for (let f = await next(); f; f = await next()) if (f.data !== undefined) out.push(f);
      return out;
    },
    close() {
      ac.abort();
    },
  };
}
