// Bench chunk-stream client (a child of bench/streams.ts, pinned to the load core): one message/stream whose agent
// streams N one-byte artifact chunks, every chunk checked against the expected alphabet (all there, in order), while a
// probe sends a cheap call (tasks/get of another task) every probeEveryMs, open loop, and records each one's latency.
// One JSON spec in argv[2]; prints one line, RESULT {json} (or FAILED {json}).
import http from 'node:http';

export interface ChunkSpec {
  port: number;
  authorization?: string;
  agentId: string;
  chunks: number;
  /** chunk i is alphabet[i % alphabet.length] */
  alphabet: string;
  /** the task the probe reads with tasks/get */
  probeTaskId: string;
  probeEveryMs: number;
  runTimeoutMs: number;
}

export interface ProbeStats {
  /** probes sent from the stream's start to its final event */
  sent: number;
  /** non-200, a JSON-RPC error, another task, a socket error, or no answer within 10 s after the stream ended */
  errors: number;
  p50Ms: number;
  p99Ms: number;
  worstMs: number;
}

/** What the stream's events add up to (onFrame folds each one in); the result carries all of it. */
interface StreamTally {
  /** chunks the client's copy of the artifact holds at the end (appends added, a replacement starts it over) */
  delivered: number;
  /** artifact-update events received (ours may carry several chunks in one) */
  artifactEvents: number;
  /** artifact-update events without append: they replace the artifact (the first may, when it starts it) */
  replacements: number;
  /** chunks that are not the expected character at their position (a chunk lost, repeated or reordered) */
  outOfOrder: number;
  /** the position of the first such chunk */
  firstOutOfOrder?: number;
  finalState?: string;
  errorFrames: number;
  errorSample: string;
}

export interface ChunkResult extends StreamTally {
  chunks: number;
  /** ms from sending message/stream to its final event (or to the stream's end) */
  completeMs: number;
  missing: number;
  timedOut: boolean;
  probe: ProbeStats;
}

const PROBE_WARMUP = 20;
const PROBE_DRAIN_MS = 10_000;

function headers(spec: ChunkSpec, body: string, sse: boolean): http.OutgoingHttpHeaders {
  return {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...(sse && { accept: 'text/event-stream' }),
    ...(spec.authorization !== undefined && { authorization: spec.authorization }),
  };
}

/** One tasks/get on a kept-alive socket: resolves true when the reply is the probe task. */
function probeOnce(spec: ChunkSpec, agent: http.Agent, id: number): Promise<boolean> {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tasks/get', params: { id: spec.probeTaskId } });
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port: spec.port, path: '/api/a2a', method: 'POST', agent, headers: headers(spec, body, false) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve(res.statusCode === 200 && text.includes('"result"') && text.includes(spec.probeTaskId)));
      res.on('error', () => resolve(false));
    });
    req.on('error', () => resolve(false));
    req.end(body);
  });
}

/** Nearest-rank percentile of sorted values. */
const pct = (sorted: number[], p: number): number => (sorted.length === 0 ? 0 : sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!);

/** Calls probeOnce every `everyMs` on a fixed schedule (open loop: a slow answer does not delay the next probe). */
function startProbe(spec: ChunkSpec, agent: http.Agent): { stop: () => Promise<ProbeStats> } {
  const latencies: number[] = [];
  const inFlight = new Set<Promise<void>>();
  let sent = 0;
  let errors = 0;
  let stopped = false;
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  let slot = 0;
  const fire = (): void => {
    if (stopped) return;
    sent++;
    const start = performance.now();
    const p: Promise<void> = probeOnce(spec, agent, sent).then((ok) => {
      inFlight.delete(p);
      if (ok) latencies.push(performance.now() - start);
      else errors++;
    });
    inFlight.add(p);
    // the next slot on the schedule, not everyMs after this one: a late timer (a busy client) does not shift the
    // schedule, and slots it missed are skipped, not sent in a burst; a timer a little early does not send twice
    slot = Math.max(slot + 1, Math.floor((performance.now() - t0) / spec.probeEveryMs) + 1);
    timer = setTimeout(fire, Math.max(0, t0 + slot * spec.probeEveryMs - performance.now()));
  };
  fire();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      let drained = false;
      await Promise.race([Promise.all(inFlight).then(() => (drained = true)), new Promise((r) => setTimeout(r, PROBE_DRAIN_MS))]);
      if (!drained) errors += inFlight.size;
      const sorted = latencies.sort((a, b) => a - b);
      return { sent, errors, p50Ms: pct(sorted, 0.5), p99Ms: pct(sorted, 0.99), worstMs: sorted.at(-1) ?? 0 };
    },
  };
}

interface Part {
  kind?: string;
  text?: string;
}
interface Frame {
  result?: { kind?: string; append?: boolean; final?: boolean; artifact?: { parts?: Part[] }; status?: { state?: string } };
  error?: unknown;
}

/** Folds one SSE event into the tally; true when it is the final one. */
function onFrame(spec: ChunkSpec, t: StreamTally, frame: Frame): boolean {
  if (frame.error !== undefined || frame.result === undefined) {
    t.errorFrames++;
    if (t.errorSample === '') t.errorSample = JSON.stringify(frame).slice(0, 300);
    return false;
  }
  const r = frame.result;
  if (r.kind === 'artifact-update') {
    t.artifactEvents++;
    if (r.append !== true) {
      t.replacements++;
      t.delivered = 0;
    }
    for (const part of r.artifact?.parts ?? []) {
      const expected = spec.alphabet[t.delivered % spec.alphabet.length];
      if (part.kind !== 'text' || part.text !== expected) {
        t.outOfOrder++;
        t.firstOutOfOrder ??= t.delivered;
      }
      t.delivered++;
    }
    return false;
  }
  if (r.kind === 'status-update' && r.final === true) {
    t.finalState = r.status?.state;
    return true;
  }
  return false;
}

/** Sends message/stream to the chunks agent and reads its events until the final one; resolves with the tally and the time. */
function runStream(spec: ChunkSpec): Promise<{ tally: StreamTally; completeMs: number; timedOut: boolean }> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 'chunks',
    method: 'message/stream',
    params: {
      message: {
        kind: 'message',
        role: 'user',
        messageId: crypto.randomUUID(),
        parts: [{ kind: 'data', data: { chunks: spec.chunks, alphabet: spec.alphabet } }],
        metadata: { agentId: spec.agentId },
      },
    },
  });
  // every field named, in the order the result line has always listed them (it spreads the tally)
  const tally: StreamTally = {
    delivered: 0,
    artifactEvents: 0,
    replacements: 0,
    outOfOrder: 0,
    firstOutOfOrder: undefined,
    finalState: undefined,
    errorFrames: 0,
    errorSample: '',
  };
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let settled = false;
    const finish = (timedOut: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ tally, completeMs: performance.now() - t0, timedOut });
      req.destroy();
    };
    const timer = setTimeout(() => finish(true), spec.runTimeoutMs);
    const req = http.request(
      { host: '127.0.0.1', port: spec.port, path: '/api/a2a', method: 'POST', agent: false, headers: headers(spec, body, true) },
      (res) => {
        if (res.statusCode !== 200) {
          settled = true;
          clearTimeout(timer);
          reject(new Error(`message/stream: HTTP ${res.statusCode}`));
          res.resume();
          return;
        }
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          buf += c;
          let end: number;
          while ((end = buf.indexOf('\n\n')) >= 0) {
            const raw = buf.slice(0, end);
            buf = buf.slice(end + 2);
            const data = raw
              .split('\n')
              .filter((l) => l.startsWith('data:'))
              .map((l) => l.slice(5).trimStart())
              .join('\n');
            if (data === '') continue; // a comment (stream open, ping) or an id-only frame
            let frame: Frame;
            try {
              frame = JSON.parse(data) as Frame;
            } catch {
              frame = { error: `not JSON: ${data.slice(0, 200)}` };
            }
            if (onFrame(spec, tally, frame)) finish(false);
          }
        });
        res.on('end', () => finish(false));
        res.on('error', () => finish(false));
      },
    );
    req.on('error', (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(err);
    });
    req.end(body);
  });
}

async function main(spec: ChunkSpec): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  // warm-up: the probe's sockets open and both sides' code paths compiled before anything is measured
  for (let i = 0; i < PROBE_WARMUP; i++) {
    if (!(await probeOnce(spec, agent, -i))) throw new Error(`the probe's tasks/get of ${spec.probeTaskId} failed before the run`);
  }
  const probe = startProbe(spec, agent);
  const run = await runStream(spec).catch(async (err: unknown) => {
    await probe.stop();
    throw err;
  });
  const stats = await probe.stop();
  agent.destroy();
  const { delivered, ...tally } = run.tally;
  const result: ChunkResult = {
    chunks: spec.chunks,
    completeMs: run.completeMs,
    delivered,
    missing: spec.chunks - delivered,
    ...tally,
    timedOut: run.timedOut,
    probe: stats,
  };
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

main(JSON.parse(process.argv[2] ?? '{}') as ChunkSpec).then(
  () => process.exit(0),
  (err: unknown) => {
    process.stdout.write(`FAILED ${JSON.stringify({ error: err instanceof Error ? err.message : String(err) })}\n`);
    process.exit(1);
  },
);
